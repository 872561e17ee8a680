#ifndef CMICROHTTPD_SHIM_H
#define CMICROHTTPD_SHIM_H
/* libmicrohttpd for taskserve. MHD_start_daemon is variadic, which Swift cannot call: the one
 * start function below passes taskserve's fixed option list. Macros Swift cannot import (casts)
 * become constants. */
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

static const ssize_t taskbase_mhd_end_of_stream = MHD_CONTENT_READER_END_OF_STREAM;
static const ssize_t taskbase_mhd_end_with_error = MHD_CONTENT_READER_END_WITH_ERROR;
static const uint64_t taskbase_mhd_size_unknown = MHD_SIZE_UNKNOWN;
static const enum MHD_Result taskbase_mhd_yes = MHD_YES;
static const enum MHD_Result taskbase_mhd_no = MHD_NO;
static const enum MHD_ValueKind taskbase_mhd_header_kind = MHD_HEADER_KIND;
static const enum MHD_ValueKind taskbase_mhd_argument_kind = MHD_GET_ARGUMENT_KIND;
static const enum MHD_ResponseMemoryMode taskbase_mhd_must_copy = MHD_RESPMEM_MUST_COPY;

/* Starts a daemon on the address `host` (IPv4 dotted quad, or IPv6, which then serves IPv6
 * only) and `port` (0: any free one), `target` hearing each request's target as sent (escapes
 * intact, before the daemon decodes it) and returning the request's first context, with
 * epoll and suspend/resume, run by the caller's event loop (no thread of its own: its epoll
 * descriptor, taskbase_mhd_epoll_fd, is watched and MHD_run called when it is readable or
 * taskbase_mhd_timeout_ms is due); NULL when it cannot (address taken, bad host). With
 * `listen_fd` >= 0 it serves that socket, already bound and listening (a worker's share of the
 * one its supervisor opened), and opens none of its own: `host` then only says its family. */
static inline struct MHD_Daemon *taskbase_mhd_start(
    const char *host, uint16_t port, MHD_AccessHandlerCallback handler, void *handler_cls,
    MHD_RequestCompletedCallback completed, void *completed_cls,
    void *(*target)(void *cls, const char *uri, struct MHD_Connection *connection), void *target_cls,
    unsigned int connection_limit,
    unsigned int per_ip_limit, unsigned int timeout_seconds, size_t memory_limit, int shares_port,
    const char *tls_key, const char *tls_cert, int listen_fd) {
    struct sockaddr_in address4;
    struct sockaddr_in6 address6;
    memset(&address4, 0, sizeof(address4));
    memset(&address6, 0, sizeof(address6));
    struct sockaddr *address;
    unsigned int flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME;
    if (inet_pton(AF_INET, host, &address4.sin_addr) == 1) {
        address4.sin_family = AF_INET;
        address4.sin_port = htons(port);
        address = (struct sockaddr *)&address4;
    } else if (inet_pton(AF_INET6, host, &address6.sin6_addr) == 1) {
        address6.sin6_family = AF_INET6;
        address6.sin6_port = htons(port);
        address = (struct sockaddr *)&address6;
        flags |= MHD_USE_IPv6;
    } else {
        return NULL;
    }
    /* HTTPS when a key and certificate (PEM, in memory) are given: GnuTLS through the daemon,
     * TLS 1.2 and 1.3 only. */
    struct MHD_OptionItem tls[] = {
        {MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)tls_key},
        {MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)tls_cert},
        {MHD_OPTION_HTTPS_PRIORITIES, 0, (void *)"NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"},
        {MHD_OPTION_END, 0, NULL},
    };
    struct MHD_OptionItem none[] = {{MHD_OPTION_END, 0, NULL}};
    struct MHD_OptionItem where[] = {
        {MHD_OPTION_SOCK_ADDR, 0, (void *)address},
        {MHD_OPTION_END, 0, NULL},
    };
    if (listen_fd >= 0) {
        where[0].option = MHD_OPTION_LISTEN_SOCKET;
        where[0].value = listen_fd;
        where[0].ptr_value = NULL;
    }
    if (tls_key && tls_cert) flags |= MHD_USE_TLS;
    /* Sharing the port (SO_REUSEPORT): other processes of the same user listening on it too,
     * the kernel spreads new connections among them. Only asked for when wanted: the option's
     * "no" is not the default but a demand Linux cannot meet. */
    return MHD_start_daemon(
        flags, port, NULL, NULL, handler, handler_cls,
        MHD_OPTION_ARRAY, where,
        MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
        MHD_OPTION_URI_LOG_CALLBACK, target, target_cls,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
        MHD_OPTION_ARRAY, (tls_key && tls_cert) ? tls : none,
        shares_port ? MHD_OPTION_LISTENING_ADDRESS_REUSE : MHD_OPTION_END, (unsigned int)1,
        MHD_OPTION_END);
}

/* The port a daemon listens on (the one chosen when started with 0). */
static inline uint16_t taskbase_mhd_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

/* The epoll descriptor of a daemon started by taskbase_mhd_start; -1 when unknown. */
static inline int taskbase_mhd_epoll_fd(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_EPOLL_FD);
    return info ? info->epoll_fd : -1;
}

/* The connections the daemon holds now; 0 when it cannot say. */
static inline unsigned int taskbase_mhd_connection_count(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info ? info->num_connections : 0;
}

/* The milliseconds until MHD_run must be called even without activity (a connection's
 * timeout, work pending: 0); -1 when only activity needs it. */
static inline int32_t taskbase_mhd_timeout_ms(struct MHD_Daemon *daemon) {
    MHD_UNSIGNED_LONG_LONG timeout = 0;
    if (MHD_get_timeout(daemon, &timeout) != MHD_YES) return -1;
    return timeout > INT32_MAX ? INT32_MAX : (int32_t)timeout;
}

/* The socket of a connection (MHD_get_connection_info is variadic too); -1 when unknown. */
static inline int taskbase_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
}

/* The address of a connection's client, as the 16 bytes of IPv6 (IPv4 mapped, ::ffff:a.b.c.d)
 * in network order, into `out`; 0 when unknown. */
static inline int taskbase_mhd_client_address(struct MHD_Connection *connection, uint8_t *out) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (!info || !info->client_addr) return 0;
    if (info->client_addr->sa_family == AF_INET) {
        memset(out, 0, 10);
        out[10] = 0xff;
        out[11] = 0xff;
        memcpy(out + 12, &((const struct sockaddr_in *)info->client_addr)->sin_addr, 4);
        return 1;
    }
    if (info->client_addr->sa_family == AF_INET6) {
        memcpy(out, &((const struct sockaddr_in6 *)info->client_addr)->sin6_addr, 16);
        return 1;
    }
    return 0;
}

#endif
