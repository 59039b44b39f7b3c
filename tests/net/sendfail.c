/*
 * A preload shim that makes the kernel's send calls fail the way real
 * networks and devices do, to test the RTP send path's fallbacks and
 * retries without leaving 127.0.0.1.
 *
 *   LD_PRELOAD=sendfail.so SENDFAIL=MODE ffmpeg ...
 *
 * MODE:
 *   gso-eio      sendmsg/sendmmsg of a message with a UDP_SEGMENT control
 *                message fails with EIO (a device without checksum offload)
 *   mmsg-enosys  sendmmsg fails with ENOSYS (a kernel without it)
 *   enobufs:N    every Nth send, sendto, sendmsg or sendmmsg on a UDP socket
 *                fails with ENOBUFS, sending nothing
 *   eagain:N     the same with EAGAIN
 *   drop:PPM[:SEED]
 *                RTP datagrams (not RTCP: a second byte of 200 to 207) sent
 *                on a UDP socket are dropped with probability PPM per
 *                million and reported as sent: a lossy link right behind
 *                the sender, retransmissions included, where the relay
 *                cannot sit (an RTSP session). One decision per datagram
 *                in the order they are sent, from SEED (default 1). A GSO
 *                message (many datagrams in one) passes whole: use it with
 *                send_mode mmsg.
 *   txtime:FILE  nothing fails: each datagram or message sent on a UDP
 *                socket is logged to FILE as "CALL TXTIME BYTES TYPE": the
 *                CLOCK_MONOTONIC time of the call and the SO_TXTIME
 *                departure time it carries (0 if none), in us, its bytes,
 *                and its second byte (RTP: marker and payload type; RTCP:
 *                200-207). What the kernel's fq qdisc would be given, where
 *                no fq is there to show it.
 *   nostamp      setsockopt(SO_TIMESTAMPNS) fails with ENOPROTOOPT (a kernel
 *                or system without it): a receiver then takes arrival times
 *                from the clock when it reads a datagram.
 * Each injected failure (or drop) is counted and the total written to
 * stderr at exit.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef SCM_TXTIME
#define SCM_TXTIME 61
#endif

static int mode, every;
static long drop_ppm;
static unsigned long long drop_seed = 1;
static atomic_long calls, injected;

enum { NONE, GSO_EIO, MMSG_ENOSYS, ENOBUFS_N, EAGAIN_N, DROP, TXTIME, NOSTAMP };
static FILE *txtime_log;

__attribute__((constructor)) static void init(void)
{
    const char *m = getenv("SENDFAIL");
    if (!m)
        return;
    if (!strcmp(m, "gso-eio"))
        mode = GSO_EIO;
    else if (!strcmp(m, "nostamp"))
        mode = NOSTAMP;
    else if (!strcmp(m, "mmsg-enosys"))
        mode = MMSG_ENOSYS;
    else if (!strncmp(m, "enobufs:", 8))
        mode = ENOBUFS_N, every = atoi(m + 8);
    else if (!strncmp(m, "eagain:", 7))
        mode = EAGAIN_N, every = atoi(m + 7);
    else if (!strncmp(m, "txtime:", 7)) {
        mode = TXTIME;
        if (!(txtime_log = fopen(m + 7, "w")))
            abort();
    } else if (!strncmp(m, "drop:", 5)) {
        char *end;
        mode     = DROP;
        drop_ppm = strtol(m + 5, &end, 10);
        if (*end == ':')
            drop_seed = strtoull(end + 1, NULL, 10);
    }
    if (every < 1)
        every = 1;
}

__attribute__((destructor)) static void fini(void)
{
    if (mode)
        fprintf(stderr, "sendfail: %ld failures injected\n", (long)atomic_load(&injected));
}

int setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
    static int (*real)(int, int, int, const void *, socklen_t);
    if (!real)
        real = dlsym(RTLD_NEXT, "setsockopt");
#ifdef SO_TIMESTAMPNS
    if (mode == NOSTAMP && level == SOL_SOCKET && name == SO_TIMESTAMPNS) {
        atomic_fetch_add(&injected, 1);
        errno = ENOPROTOOPT;
        return -1;
    }
#endif
    return real(fd, level, name, val, len);
}

static int is_udp(int fd)
{
    int type = 0;
    socklen_t len = sizeof(type);
    return !getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) && type == SOCK_DGRAM;
}

static int has_gso(const struct msghdr *m)
{
    for (struct cmsghdr *c = CMSG_FIRSTHDR((struct msghdr *)m); c;
         c = CMSG_NXTHDR((struct msghdr *)m, c))
        if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_SEGMENT)
            return 1;
    return 0;
}

/* 1 if this call fails (errno set) */
static int fail_nth(int fd)
{
    if ((mode != ENOBUFS_N && mode != EAGAIN_N) || !is_udp(fd))
        return 0;
    if ((atomic_fetch_add(&calls, 1) + 1) % every)
        return 0;
    atomic_fetch_add(&injected, 1);
    errno = mode == ENOBUFS_N ? ENOBUFS : EAGAIN;
    return 1;
}

/* 1 if this datagram (first bytes p, n of them) is to be dropped */
static int drop_it(int fd, const unsigned char *p, size_t n)
{
    unsigned long long z;

    if (mode != DROP || n < 12 || (p[0] >> 6) != 2 || (p[1] >= 200 && p[1] <= 207) || !is_udp(fd))
        return 0;
    z = drop_seed + (unsigned long long)(atomic_fetch_add(&calls, 1) + 1) * 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    if (((z ^ (z >> 31)) >> 32) % 1000000 >= (unsigned long long)drop_ppm)
        return 0;
    atomic_fetch_add(&injected, 1);
    return 1;
}

static int drop_msg(int fd, const struct msghdr *m)
{
    return m->msg_iovlen && !has_gso(m) &&
           drop_it(fd, m->msg_iov[0].iov_base, m->msg_iov[0].iov_len);
}

static size_t msg_len(const struct msghdr *m)
{
    size_t len = 0;
    for (size_t i = 0; i < m->msg_iovlen; i++)
        len += m->msg_iov[i].iov_len;
    return len;
}

static void log_send(int fd, const void *data, size_t len, unsigned long long ns)
{
    struct timespec ts;

    if (mode != TXTIME || !is_udp(fd))
        return;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    flockfile(txtime_log);
    fprintf(txtime_log, "%lld %llu %zu %d\n", ts.tv_sec * 1000000LL + ts.tv_nsec / 1000,
            ns / 1000, len, len > 1 ? ((const unsigned char *)data)[1] : -1);
    fflush(txtime_log);
    funlockfile(txtime_log);
}

static void log_txtime(int fd, const struct msghdr *m)
{
    unsigned long long ns = 0;

    if (mode != TXTIME || !m->msg_iovlen)
        return;
    for (struct cmsghdr *c = CMSG_FIRSTHDR((struct msghdr *)m); c;
         c = CMSG_NXTHDR((struct msghdr *)m, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TXTIME)
            memcpy(&ns, CMSG_DATA(c), sizeof(ns));
    log_send(fd, m->msg_iov[0].iov_base, msg_len(m), ns);
}

ssize_t send(int fd, const void *buf, size_t len, int flags)
{
    static ssize_t (*real)(int, const void *, size_t, int);
    if (!real)
        real = dlsym(RTLD_NEXT, "send");
    if (fail_nth(fd))
        return -1;
    if (drop_it(fd, buf, len))
        return len;
    log_send(fd, buf, len, 0);
    return real(fd, buf, len, flags);
}

ssize_t sendto(int fd, const void *buf, size_t len, int flags,
               const struct sockaddr *to, socklen_t tolen)
{
    static ssize_t (*real)(int, const void *, size_t, int, const struct sockaddr *, socklen_t);
    if (!real)
        real = dlsym(RTLD_NEXT, "sendto");
    if (fail_nth(fd))
        return -1;
    if (drop_it(fd, buf, len))
        return len;
    log_send(fd, buf, len, 0);
    return real(fd, buf, len, flags, to, tolen);
}

ssize_t sendmsg(int fd, const struct msghdr *m, int flags)
{
    static ssize_t (*real)(int, const struct msghdr *, int);
    if (!real)
        real = dlsym(RTLD_NEXT, "sendmsg");
    if (mode == GSO_EIO && has_gso(m)) {
        atomic_fetch_add(&injected, 1);
        errno = EIO;
        return -1;
    }
    if (fail_nth(fd))
        return -1;
    if (drop_msg(fd, m))
        return msg_len(m);
    log_txtime(fd, m);
    return real(fd, m, flags);
}

int sendmmsg(int fd, struct mmsghdr *v, unsigned int n, int flags)
{
    static int (*real)(int, struct mmsghdr *, unsigned int, int);
    if (!real)
        real = dlsym(RTLD_NEXT, "sendmmsg");
    if (mode == MMSG_ENOSYS) {
        atomic_fetch_add(&injected, 1);
        errno = ENOSYS;
        return -1;
    }
    if (mode == GSO_EIO && n && has_gso(&v[0].msg_hdr)) {
        /* the kernel fails the first message and reports it */
        atomic_fetch_add(&injected, 1);
        errno = EIO;
        return -1;
    }
    if (mode == GSO_EIO) {
        /* send up to the first GSO message: the rest fails with it */
        for (unsigned i = 1; i < n; i++)
            if (has_gso(&v[i].msg_hdr))
                return real(fd, v, i, flags);
    }
    if (fail_nth(fd))
        return -1;
    if (mode == DROP) {
        /* one message at a time, the dropped ones reported as sent */
        static ssize_t (*real_msg)(int, const struct msghdr *, int);
        if (!real_msg)
            real_msg = dlsym(RTLD_NEXT, "sendmsg");
        for (unsigned i = 0; i < n; i++) {
            ssize_t r;
            if (drop_msg(fd, &v[i].msg_hdr)) {
                v[i].msg_len = msg_len(&v[i].msg_hdr);
                continue;
            }
            if ((r = real_msg(fd, &v[i].msg_hdr, flags)) < 0)
                return i ? (int)i : -1;
            v[i].msg_len = r;
        }
        return n;
    }
    if (mode == TXTIME) {
        int r = real(fd, v, n, flags);
        for (int i = 0; i < r; i++)
            log_txtime(fd, &v[i].msg_hdr);
        return r;
    }
    return real(fd, v, n, flags);
}
