#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <string.h>
#include <stdint.h>
#include <microhttpd.h>

// MHD's start, daemon-info and connection-info calls are variadic, which Swift cannot call.
// These fixed-signature wrappers pass exactly the options Hosted uses.

/// Leaves the URL and query arguments percent-encoded, so the Swift side decodes them once
/// (an encoded "%2f" must never become a path separator).
static size_t hosted_mhd_keep_escaped(void *cls, struct MHD_Connection *c, char *s) {
    (void)cls; (void)c;
    return strlen(s);
}

/// Starts a daemon listening on `addr` (an IPv4 or IPv6 sockaddr) with an internal thread pool
/// of `threads` workers using epoll. Returns NULL on failure.
static inline struct MHD_Daemon *hosted_mhd_start(
    const struct sockaddr *addr, int ipv6, unsigned int threads, unsigned int timeout_seconds,
    unsigned int connection_limit,
    MHD_AccessHandlerCallback handler, void *handler_cls,
    MHD_RequestCompletedCallback completed, void *completed_cls)
{
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC
                         | MHD_USE_TURBO | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
    if (ipv6) flags |= MHD_USE_IPv6;
    uint16_t port = ipv6 ? ntohs(((const struct sockaddr_in6 *)addr)->sin6_port)
                         : ntohs(((const struct sockaddr_in *)addr)->sin_port);
    return MHD_start_daemon(flags, port, NULL, NULL, handler, handler_cls,
        MHD_OPTION_SOCK_ADDR, addr,
        MHD_OPTION_THREAD_POOL_SIZE, threads,
        MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        /* libmicrohttpd's default backlog (32) overflows when hundreds of clients connect at
           once; dropped handshakes then wait for SYN-ACK retransmits for seconds. */
        MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned int)1024,
        MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
        MHD_OPTION_UNESCAPE_CALLBACK, hosted_mhd_keep_escaped, NULL,
        MHD_OPTION_END);
}

/// The port the daemon is bound to (useful after binding port 0), or 0 if unknown.
static inline uint16_t hosted_mhd_bound_port(struct MHD_Daemon *d) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

/// Writes the client's numeric address into `buf`; returns 0 on success.
static inline int hosted_mhd_client_address(struct MHD_Connection *c, char *buf, socklen_t len) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (!info || !info->client_addr) return -1;
    const struct sockaddr *sa = info->client_addr;
    const void *src = sa->sa_family == AF_INET6
        ? (const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr
        : (const void *)&((const struct sockaddr_in *)sa)->sin_addr;
    return inet_ntop(sa->sa_family, src, buf, len) ? 0 : -1;
}
