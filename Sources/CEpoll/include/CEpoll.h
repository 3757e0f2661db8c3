// Exposes what Swift's Glibc module leaves out: epoll and eventfd.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <netinet/tcp.h>
