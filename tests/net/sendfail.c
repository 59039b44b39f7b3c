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
 * Each injected failure is counted and the total written to stderr at exit.
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

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif

static int mode, every;
static atomic_long calls, injected;

enum { NONE, GSO_EIO, MMSG_ENOSYS, ENOBUFS_N, EAGAIN_N };

__attribute__((constructor)) static void init(void)
{
    const char *m = getenv("SENDFAIL");
    if (!m)
        return;
    if (!strcmp(m, "gso-eio"))
        mode = GSO_EIO;
    else if (!strcmp(m, "mmsg-enosys"))
        mode = MMSG_ENOSYS;
    else if (!strncmp(m, "enobufs:", 8))
        mode = ENOBUFS_N, every = atoi(m + 8);
    else if (!strncmp(m, "eagain:", 7))
        mode = EAGAIN_N, every = atoi(m + 7);
    if (every < 1)
        every = 1;
}

__attribute__((destructor)) static void fini(void)
{
    if (mode)
        fprintf(stderr, "sendfail: %ld failures injected\n", (long)atomic_load(&injected));
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

ssize_t send(int fd, const void *buf, size_t len, int flags)
{
    static ssize_t (*real)(int, const void *, size_t, int);
    if (!real)
        real = dlsym(RTLD_NEXT, "send");
    if (fail_nth(fd))
        return -1;
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
    return real(fd, v, n, flags);
}
