#define _GNU_SOURCE
#include <stddef.h>
#include <sys/socket.h>
#include "CEpoll.h"

int cepoll_accept(int listener) {
    return accept4(listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
}
