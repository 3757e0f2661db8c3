// Exposes what Swift's Glibc module leaves out: epoll, eventfd and accept4.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <netinet/tcp.h>

/// accept4(2) with no peer address: a non-blocking, close-on-exec connection, or -1 and errno.
int cepoll_accept(int listener);
