#ifndef CLIBPQ_SHIM_H
#define CLIBPQ_SHIM_H
#include <libpq-fe.h>
/* PGStore waits on libpq's sockets with epoll; Swift's Glibc module does not export it. */
#include <sys/epoll.h>
#include <sys/eventfd.h>
#endif
