/*
 * A capturing UDP receiver for the RTP send-path tests, on 127.0.0.1 only.
 *
 *   rtpcap capture OUT.pcap READYFILE MAXPKTS IDLE_MS TOTAL_MS PORT[:FWD] ...
 *       Binds 127.0.0.1:PORT for each port, touches READYFILE, and writes
 *       every datagram to OUT.pcap (LINKTYPE_RAW, IPv4/UDP headers made up
 *       from the real ports) until MAXPKTS datagrams, IDLE_MS without one
 *       after the first, or TOTAL_MS in all. With :FWD, each datagram is
 *       also forwarded, unchanged, to 127.0.0.1:FWD (a receiver under test),
 *       with :FWD:DELAY_MS after that delay (in order). The IPv4 header's
 *       TOS byte is the datagram's own (IP_RECVTOS): DSCP and ECN.
 *   rtpcap sink GRO IDLE_MS TOTAL_MS PORT...
 *       Drains datagrams (a benchmark's receiver) and prints the bytes read.
 *       GRO=1 sets UDP_GRO, so that loopback hands the socket a UDP GSO send
 *       as one unit, as a NIC's segmentation offload would keep it off the
 *       sender's CPU; without it the loopback receive path segments it in
 *       the sender's system call.
 *   rtpcap relay OUT.pcap READY SEED LOSS_PPM BURST DELAY_MS IDLE_MS TOTAL_MS IN_PORT OUT_PORT SENDER_RTCP [RTX_LOSS [RATE_KBIT QUEUE_BYTES]]
 *       A lossy relay between an RTP sender and a receiver. RTP arriving on
 *       IN_PORT goes to OUT_PORT; packets are dropped LOSS_PPM per million on
 *       average, in bursts of BURST packets (1: independent losses). Which
 *       sequence numbers drop is a function of SEED and the sequence number
 *       alone, so every run with the same stream drops the same packets
 *       whatever the timing. A packet seen before (a retransmission), or
 *       of another SSRC than the first packet's (RFC 4588 retransmissions
 *       on their own SSRC), is not dropped unless RTX_LOSS is 1: then each
 *       one drops with the same probability, independently, as a function
 *       of SEED, its sequence number and how often that number was seen
 *       (a link does not know retransmissions). RTCP
 *       arriving on IN_PORT + 1 from the sender (from port SENDER_RTCP)
 *       goes to OUT_PORT + 1; RTCP from anyone else (the
 *       receiver) goes back to 127.0.0.1:SENDER_RTCP. Everything towards the receiver is delayed by DELAY_MS, so
 *       the round trip grows by exactly that (an RTCP BYE waits 500 ms
 *       more, so that it cannot overtake retransmissions of the last
 *       packets). OUT.pcap gets every datagram
 *       the relay received, to its own port numbers. It prints "dropped SEQ"
 *       for each RTP packet dropped, and at the end one line of counts.
 *       With RATE_KBIT, everything towards the receiver (RTP and the
 *       sender's RTCP, after the random loss) also crosses a bottleneck: a
 *       link of RATE_KBIT kbit/s behind a drop-tail queue of QUEUE_BYTES
 *       (IPv4 and UDP headers counted, 28 bytes). A datagram that finds the
 *       queue without room for it is dropped ("qdropped SEQ"); one that
 *       fits leaves when the link has sent it and everything before it.
 *       The queue is computed from the kernel's arrival times, so it does
 *       not depend on when the relay gets to run. RATE_KBIT may be a
 *       schedule, RATE[:SECONDS],RATE[:SECONDS],...,RATE: each rate for
 *       that many seconds from the first datagram through the link, the
 *       last one from then on. With a bottleneck, OUT.pcap.series gets one
 *       line per 100 ms from that first datagram: seconds, kbit/s that
 *       left the link, mean queueing delay (ms) of the datagrams that
 *       arrived, datagrams dropped at the queue, the link's kbit/s,
 *       datagrams the queue took; a first line "# first_us T" gives that
 *       first datagram's arrival (µs of the monotonic clock, as FFmpeg's
 *       av_gettime_relative() and the stats_file's time_us).
 *       The environment variable RTPCAP_DROP=SEQ[,SEQ...] drops the first
 *       transmission of those sequence numbers too (e.g. a stream's last).
 *       With the environment variable RTPCAP_LINK naming a file made by
 *       "rtpcap link-init FILE", relays in several processes share one
 *       bottleneck (its schedule counts from the first datagram of any).
 *   rtpcap link-init FILE
 *       Makes FILE for RTPCAP_LINK: an empty shared link.
 *   rtpcap times IN.pcap PORT
 *       One line per RTP datagram sent to PORT: its arrival time (µs of
 *       the realtime clock, the kernel's stamp), sequence number, RTP
 *       timestamp and size.
 *   rtpcap stamp
 *       Copies stdin to stdout, each line prefixed with the realtime clock
 *       in µs when it was read (a receiver's output, timed).
 *   rtpcap dump IN.pcap PORT [TSBASE]
 *       One line per datagram sent to PORT: its size and bytes in hex. With
 *       TSBASE, RTP timestamps are shifted so that the first one is TSBASE
 *       (to compare with a sender whose timestamp base is random).
 *
 * Independent of the code under test: plain sockets and byte copies.
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <linux/sockios.h>

#define MAX_PORTS 4
#define MAX_DGRAM 65536

typedef struct Delayed {
    struct Delayed *next;
    int64_t due;
    int len;
    uint8_t data[];
} Delayed;

typedef struct Port {
    int fd, port, fwd, delay;
    Delayed *head, *tail;
} Port;

static void forward(const Port *p, const uint8_t *buf, int len)
{
    struct sockaddr_in to = { .sin_family = AF_INET };
    to.sin_port = htons(p->fwd);
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sendto(p->fd, buf, len, 0, (struct sockaddr *)&to, sizeof(to));
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static int64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static void put16(uint8_t *p, unsigned v) { p[0] = v >> 8; p[1] = v; }

/* Turns on arrival time stamps for fd before anything arrives. The kernel
 * stamps a datagram when loopback queues it only while some socket wants
 * stamps, and it turns that on from a work queue; a datagram queued before
 * gets the time it is read instead (late if this program was not running).
 * So this waits, bounded, until a probe datagram comes back stamped with
 * its send time rather than its read time. */
static void stamps_on(int fd)
{
    struct timeval tv;
    ioctl(fd, SIOCGSTAMP, &tv); /* no datagram yet: fails, but enables */
}

static void stamps_wait(void)
{
    struct sockaddr_in a = { .sin_family = AF_INET };
    socklen_t al = sizeof(a);
    int fd = socket(AF_INET, SOCK_DGRAM, 0);

    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
        getsockname(fd, (struct sockaddr *)&a, &al) < 0) {
        perror("rtpcap: probe socket");
        exit(1);
    }
    stamps_on(fd);
    for (int i = 0; i < 200; i++) {
        struct timeval sent, got;
        uint8_t b = 0;
        gettimeofday(&sent, NULL);
        sendto(fd, &b, 1, 0, (struct sockaddr *)&a, sizeof(a));
        usleep(5000);
        if (recv(fd, &b, 1, MSG_DONTWAIT) == 1 && !ioctl(fd, SIOCGSTAMP, &got) &&
            (got.tv_sec - sent.tv_sec) * 1000000LL + got.tv_usec - sent.tv_usec < 4000) {
            close(fd);
            return;
        }
    }
    fprintf(stderr, "rtpcap: the kernel does not stamp datagrams on arrival\n");
    exit(1);
}

/* The record's time is the kernel's arrival time of the datagram just read
 * from fd (SIOCGSTAMP), not when this program got to it. Returns how long
 * ago that was, in µs. */
static int cur_tos;     /* the TOS byte of the datagram just read (capture) */

static int64_t write_record(FILE *f, int fd, int src_port, int dst_port, const uint8_t *data, int len)
{
    struct timeval now;
    uint8_t hdr[28] = { 0x45, cur_tos };
    struct timeval tv;
    uint32_t rec[4];

    if (ioctl(fd, SIOCGSTAMP, &tv) < 0)
        gettimeofday(&tv, NULL);
    rec[0] = tv.tv_sec;
    rec[1] = tv.tv_usec;
    rec[2] = rec[3] = len + 28;
    put16(hdr + 2, (len + 28) > 0xffff ? 0xffff : len + 28);
    hdr[8] = 64;
    hdr[9] = 17;
    hdr[12] = 127; hdr[15] = 1;
    hdr[16] = 127; hdr[19] = 1;
    put16(hdr + 20, src_port);
    put16(hdr + 22, dst_port);
    put16(hdr + 24, (len + 8) > 0xffff ? 0xffff : len + 8);
    fwrite(rec, sizeof(rec), 1, f);
    fwrite(hdr, sizeof(hdr), 1, f);
    fwrite(data, 1, len, f);
    gettimeofday(&now, NULL);
    return (now.tv_sec - tv.tv_sec) * 1000000LL + now.tv_usec - tv.tv_usec;
}

static int capture(int argc, char **argv)
{
    const char *out = argv[2], *ready = argv[3];
    long max_pkts = atol(argv[4]), idle = atol(argv[5]), total = atol(argv[6]);
    struct pollfd pfd[MAX_PORTS];
    Port ports[MAX_PORTS] = { 0 };
    int nb = 0;
    static uint8_t buf[MAX_DGRAM];
    uint32_t ghdr[6] = { 0xa1b2c3d4, 0x00040002, 0, 0, 262144, 101 };
    long count = 0;
    int64_t start = now_ms(), last = 0;
    FILE *f, *r;

    for (int i = 7; i < argc && nb < MAX_PORTS; i++) {
        struct sockaddr_in a = { .sin_family = AF_INET };
        int fd = socket(AF_INET, SOCK_DGRAM, 0), sz = 64 << 20;

        a.sin_port = htons(atoi(argv[i]));
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
            perror("rtpcap: bind");
            return 1;
        }
        /* root may exceed rmem_max; a big buffer keeps fast senders lossless */
        if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) < 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
        /* the sender's DSCP goes into the capture's IPv4 headers */
        setsockopt(fd, IPPROTO_IP, IP_RECVTOS, &(int){ 1 }, sizeof(int));
        stamps_on(fd);
        pfd[nb].fd = fd;
        pfd[nb].events = POLLIN;
        ports[nb].fd   = fd;
        ports[nb].port = atoi(argv[i]);
        if (strchr(argv[i], ':')) {
            char *c = strchr(argv[i], ':') + 1;
            ports[nb].fwd = atoi(c);
            if (strchr(c, ':'))
                ports[nb].delay = atoi(strchr(c, ':') + 1);
        }
        nb++;
    }
    stamps_wait();
    if (!(f = fopen(out, "wb")) || !(r = fopen(ready, "w"))) {
        perror("rtpcap: fopen");
        return 1;
    }
    fclose(r);
    fwrite(ghdr, sizeof(ghdr), 1, f);

    for (;;) {
        int64_t t = now_ms(), wait = start + total - t;
        int pending = 0;

        for (int i = 0; i < nb; i++) {
            Port *p = &ports[i];
            while (p->head && p->head->due <= t) {
                Delayed *d = p->head;
                forward(p, d->data, d->len);
                p->head = d->next;
                if (!p->head)
                    p->tail = NULL;
                free(d);
            }
            if (p->head) {
                pending = 1;
                if (p->head->due - t < wait)
                    wait = p->head->due - t;
            }
        }
        if (count >= max_pkts && !pending)
            break;
        if (last && !pending && last + idle - t < wait)
            wait = last + idle - t;
        if (wait <= 0)
            break;
        if (poll(pfd, nb, wait) <= 0)
            continue;
        for (int i = 0; i < nb && count < max_pkts; i++) {
            struct sockaddr_in from;
            struct iovec iov = { buf, sizeof(buf) };
            union { char b[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } ctl;
            struct msghdr mh = { .msg_name = &from, .msg_namelen = sizeof(from),
                                 .msg_iov = &iov, .msg_iovlen = 1,
                                 .msg_control = ctl.b, .msg_controllen = sizeof(ctl.b) };
            ssize_t n;
            if (!(pfd[i].revents & POLLIN))
                continue;
            n = recvmsg(pfd[i].fd, &mh, MSG_DONTWAIT);
            if (n < 0)
                continue;
            cur_tos = 0;
            for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
                if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS)
                    cur_tos = *(uint8_t *)CMSG_DATA(c);
            write_record(f, pfd[i].fd, ntohs(from.sin_port), ports[i].port, buf, n);
            if (ports[i].fwd && !ports[i].delay) {
                forward(&ports[i], buf, n);
            } else if (ports[i].fwd) {
                Delayed *d = malloc(sizeof(*d) + n);
                if (!d)
                    return 1;
                d->next = NULL;
                d->due  = now_ms() + ports[i].delay;
                d->len  = n;
                memcpy(d->data, buf, n);
                if (ports[i].tail)
                    ports[i].tail->next = d;
                else
                    ports[i].head = d;
                ports[i].tail = d;
            }
            count++;
            last = now_ms();
        }
    }
    fclose(f);
    fprintf(stderr, "rtpcap: %ld datagrams in %lld ms\n", count, (long long)(now_ms() - start));
    return 0;
}

static int sink(int argc, char **argv)
{
    int gro = atoi(argv[2]);
    long idle = atol(argv[3]), total = atol(argv[4]);
    struct pollfd pfd[MAX_PORTS];
    int nb = 0;
    static uint8_t buf[MAX_DGRAM];
    long long bytes = 0, reads = 0;
    int64_t start = now_ms(), last = 0;

    for (int i = 5; i < argc && nb < MAX_PORTS; i++) {
        struct sockaddr_in a = { .sin_family = AF_INET };
        int fd = socket(AF_INET, SOCK_DGRAM, 0), sz = 64 << 20, one = 1;

        a.sin_port = htons(atoi(argv[i]));
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
            perror("rtpcap: bind");
            return 1;
        }
        if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) < 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
        if (gro && setsockopt(fd, IPPROTO_UDP, 104 /* UDP_GRO */, &one, sizeof(one)) < 0)
            perror("rtpcap: UDP_GRO");
        pfd[nb].fd = fd;
        pfd[nb++].events = POLLIN;
    }
    for (;;) {
        int64_t t = now_ms(), wait = start + total - t;
        if (last && last + idle - t < wait)
            wait = last + idle - t;
        if (wait <= 0)
            break;
        if (poll(pfd, nb, wait) <= 0)
            continue;
        for (int i = 0; i < nb; i++) {
            ssize_t n;
            while ((n = recv(pfd[i].fd, buf, sizeof(buf), MSG_DONTWAIT)) >= 0) {
                bytes += n;
                reads++;
            }
        }
        last = now_ms();
    }
    printf("%lld bytes in %lld reads\n", bytes, reads);
    return 0;
}


static uint64_t seed;

/** A hash of the seed and n, uniform in [0, 2^32) (splitmix64). */
static uint32_t hash(uint32_t n)
{
    uint64_t z = seed + (n + 1) * 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return (z ^ (z >> 31)) >> 32;
}

/** Whether sequence number seq drops: a burst of `burst` starts at any
 *  sequence number with probability loss / burst. */
static int dropped(int seq, long loss_ppm, long burst)
{
    for (long k = 0; k < burst; k++)
        if (hash((uint16_t)(seq - k)) % 1000000 < (uint32_t)(loss_ppm / burst))
            return 1;
    return 0;
}

typedef struct Pending {
    struct Pending *next;
    int64_t due;
    int fd;
    struct sockaddr_in to;
    int len;
    uint8_t data[];
} Pending;

static Pending *pend_head, *pend_tail;

static int enqueue(int fd, const struct sockaddr_in *to, const uint8_t *buf, int len, int64_t due)
{
    Pending *p = malloc(sizeof(*p) + len);
    if (!p)
        return -1;
    p->next = NULL;
    p->due  = due;
    p->fd   = fd;
    p->to   = *to;
    p->len  = len;
    memcpy(p->data, buf, len);
    /* delays are constant per direction and the backward one is 0: keep
     * the queue sorted by inserting from the tail */
    if (!pend_tail || pend_tail->due <= due) {
        if (pend_tail)
            pend_tail->next = p;
        else
            pend_head = p;
        pend_tail = p;
    } else {
        Pending **pp = &pend_head;
        while (*pp && (*pp)->due <= due)
            pp = &(*pp)->next;
        p->next = *pp;
        *pp = p;
    }
    return 0;
}

#define MAX_PHASES  8
#define SERIES_BINS 6000        /* 10 minutes of 100 ms */

/* a bottleneck shared by relays in several processes (rtpcap link-init) */
typedef struct SharedLink {
    pthread_mutex_t lock;
    int64_t link_free, first;
} SharedLink;

typedef struct Link {
    SharedLink *sh;
    double rate[MAX_PHASES];    /* bytes/s */
    int64_t until[MAX_PHASES];  /* µs from the first datagram; the last: forever */
    int nb;
    int64_t first;              /* arrival of the first datagram, 0: none yet */
    int64_t *out_bytes, *qdelay_sum, *qdelay_n, *qdrops;
} Link;

/* "K[:S],K[:S],...,K" in kbit/s and seconds */
static void link_parse(Link *l, const char *spec)
{
    int64_t t = 0;

    while (*spec && l->nb < MAX_PHASES) {
        char *end;
        l->rate[l->nb] = strtod(spec, &end) * 1000 / 8;
        spec = end;
        if (*spec == ':') {
            t += (int64_t)(strtod(spec + 1, &end) * 1e6);
            spec = end;
        } else {
            t = INT64_MAX;
        }
        l->until[l->nb++] = t;
        if (*spec == ',')
            spec++;
        else
            break;
    }
    l->until[l->nb - 1] = INT64_MAX;
}

static double link_rate(const Link *l, int64_t arrived)
{
    int64_t t = l->first ? arrived - l->first : 0;
    for (int i = 0; i < l->nb; i++)
        if (t < l->until[i])
            return l->rate[i];
    return l->nb ? l->rate[l->nb - 1] : 0;
}

/**
 * A datagram of n bytes arriving at the bottleneck at µs arrived: when its
 * last bit leaves the link, or -1 if the queue has no room for it. rate 0:
 * no bottleneck.
 */
static int64_t bottleneck(double rate, long queue, int64_t *link_free, int64_t arrived, int n)
{
    int wire = n + 28;
    double backlog;

    if (rate <= 0)
        return arrived;
    backlog = *link_free > arrived ? (*link_free - arrived) * rate / 1e6 : 0;
    if (backlog + wire > queue)
        return -1;
    *link_free = (*link_free > arrived ? *link_free : arrived) + (int64_t)(wire * 1e6 / rate + 0.5);
    return *link_free;
}

/** bottleneck() at the link's rate then, and the datagram in the series. */
static int64_t link_pass(Link *l, long queue, int64_t *link_free, int64_t arrived, int n)
{
    double rate;
    int64_t out, b;

    if (!l->nb)
        return arrived;
    if (l->sh) {
        pthread_mutex_lock(&l->sh->lock);
        if (!l->sh->first)
            l->sh->first = arrived;
        l->first = l->sh->first;
        rate = link_rate(l, arrived);
        out  = bottleneck(rate, queue, &l->sh->link_free, arrived, n);
        pthread_mutex_unlock(&l->sh->lock);
    } else {
        if (!l->first)
            l->first = arrived;
        rate = link_rate(l, arrived);
        out  = bottleneck(rate, queue, link_free, arrived, n);
    }
    b    = (arrived - l->first) / 100000;
    if (b < 0 || b >= SERIES_BINS)
        return out;
    if (out < 0) {
        l->qdrops[b]++;
    } else {
        int64_t ob = (out - l->first) / 100000;
        l->qdelay_sum[b] += out - arrived - (int64_t)((n + 28) * 1e6 / rate);
        l->qdelay_n[b]++;
        if (ob < SERIES_BINS)
            l->out_bytes[ob] += n + 28;
    }
    return out;
}

static void link_series(const Link *l, const char *pcap)
{
    char path[4096];
    FILE *f;
    int last = -1;

    if (!l->nb || !l->first)
        return;
    snprintf(path, sizeof(path), "%s.series", pcap);
    if (!(f = fopen(path, "w")))
        return;
    for (int b = 0; b < SERIES_BINS; b++)
        if (l->out_bytes[b] || l->qdelay_n[b] || l->qdrops[b])
            last = b;
    fprintf(f, "# first_us %"PRId64"\n", l->first);
    for (int b = 0; b <= last; b++)
        fprintf(f, "%.1f %.0f %.2f %"PRId64" %.0f %"PRId64"\n", b / 10.0, l->out_bytes[b] * 8 / 0.1 / 1000,
                l->qdelay_n[b] ? l->qdelay_sum[b] / 1000.0 / l->qdelay_n[b] : 0, l->qdrops[b],
                link_rate(l, l->first + b * 100000) * 8 / 1000, l->qdelay_n[b]);
    fclose(f);
}

static int relay(int argc, char **argv)
{
    const char *out = argv[2], *ready = argv[3];
    long loss_ppm = atol(argv[5]), burst = atol(argv[6]), delay = atol(argv[7]);
    long idle = atol(argv[8]), total = atol(argv[9]);
    int rtx_loss = argc > 13 && atoi(argv[13]);
    int in_port = atoi(argv[10]), out_port = atoi(argv[11]), sender_port = atoi(argv[12]);
    struct sockaddr_in to_rtp = { .sin_family = AF_INET }, to_rtcp = { .sin_family = AF_INET };
    struct sockaddr_in sender_rtcp = { .sin_family = AF_INET };
    struct pollfd pfd[2];
    static uint8_t buf[MAX_DGRAM];
    long rtp_in = 0, rtp_dropped = 0, rtp_out = 0, rtcp_fwd = 0, rtcp_back = 0;
    static uint8_t seen[65536], seen_rtx[65536], forced[65536];
    long rtx_dropped = 0, queue_dropped = 0;
    Link link = { 0 };
    long queue = argc > 15 ? atol(argv[15]) : 0;
    int64_t link_free = 0;      /* when the bottleneck has sent all it took */
    uint32_t media_ssrc = 0;
    int have_media_ssrc = 0;
    int64_t start = now_us(), last = 0, arrived_last[2] = { 0 };
    FILE *f, *r;

    if (getenv("RTPCAP_DROP")) {
        const char *d = getenv("RTPCAP_DROP");
        char *end;
        while (*d) {
            long v = strtol(d, &end, 10);
            if (end == d || v < 0 || v > 65535 || (*end && *end != ',')) {
                fprintf(stderr, "RTPCAP_DROP: bad list \"%s\"\n", getenv("RTPCAP_DROP"));
                return 2;
            }
            forced[v] = 1;
            d = *end ? end + 1 : end;
        }
    }
    if (argc > 15 && atof(argv[14]) > 0) {
        link_parse(&link, argv[14]);
        link.out_bytes  = calloc(SERIES_BINS, sizeof(int64_t));
        link.qdelay_sum = calloc(SERIES_BINS, sizeof(int64_t));
        link.qdelay_n   = calloc(SERIES_BINS, sizeof(int64_t));
        link.qdrops     = calloc(SERIES_BINS, sizeof(int64_t));
        if (!link.out_bytes || !link.qdelay_sum || !link.qdelay_n || !link.qdrops)
            return 1;
        if (getenv("RTPCAP_LINK")) {
            int fd = open(getenv("RTPCAP_LINK"), O_RDWR);
            if (fd < 0 || (link.sh = mmap(NULL, sizeof(SharedLink), PROT_READ | PROT_WRITE,
                                          MAP_SHARED, fd, 0)) == MAP_FAILED) {
                perror("rtpcap: RTPCAP_LINK");
                return 1;
            }
            close(fd);
        }
    }
    seed = strtoull(argv[4], NULL, 0);
    if (burst < 1)
        burst = 1;
    to_rtp.sin_addr.s_addr = to_rtcp.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sender_rtcp.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sender_rtcp.sin_port = htons(sender_port);
    to_rtp.sin_port  = htons(out_port);
    to_rtcp.sin_port = htons(out_port + 1);
    for (int i = 0; i < 2; i++) {
        struct sockaddr_in a = { .sin_family = AF_INET };
        int fd = socket(AF_INET, SOCK_DGRAM, 0), sz = 16 << 20;
        a.sin_port = htons(in_port + i);
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
            perror("rtpcap: bind");
            return 1;
        }
        if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) < 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
        stamps_on(fd);
        pfd[i].fd = fd;
        pfd[i].events = POLLIN;
    }
    stamps_wait();
    if (!(f = fopen(out, "wb")) || !(r = fopen(ready, "w"))) {
        perror("rtpcap: fopen");
        return 1;
    }
    fclose(r);
    {
        uint32_t ghdr[6] = { 0xa1b2c3d4, 0x00040002, 0, 0, 262144, 101 };
        fwrite(ghdr, sizeof(ghdr), 1, f);
    }

    for (;;) {
        /* due times in µs, so that the added delay is exact, not to the ms */
        int64_t t = now_us(), wait = start + total * 1000 - t;
        while (pend_head && pend_head->due <= t) {
            Pending *p = pend_head;
            sendto(p->fd, p->data, p->len, 0, (struct sockaddr *)&p->to, sizeof(p->to));
            pend_head = p->next;
            if (!pend_head)
                pend_tail = NULL;
            free(p);
        }
        if (pend_head && pend_head->due - t < wait)
            wait = pend_head->due - t;
        if (!pend_head && last && last + idle * 1000 - t < wait)
            wait = last + idle * 1000 - t;
        if (wait <= 0 && !pend_head)
            break;
        if (wait < 0)
            wait = 0;
        if (ppoll(pfd, 2, &(struct timespec){ wait / 1000000, wait % 1000000 * 1000 }, NULL) <= 0)
            continue;
        for (int i = 0; i < 2; i++) {
            struct sockaddr_in from;
            socklen_t fl = sizeof(from);
            ssize_t n;
            if (!(pfd[i].revents & POLLIN))
                continue;
            while ((n = recvfrom(pfd[i].fd, buf, sizeof(buf), MSG_DONTWAIT,
                                 (struct sockaddr *)&from, &fl)) >= 0) {
                int from_receiver;
                int64_t age, arrived;
                fl = sizeof(from);
                last = now_us();
                /* the delay counts from the datagram's arrival, so that a
                 * relay running late does not add to it; but the two clocks
                 * are read a few µs apart, so the times are kept in order
                 * per socket, or datagrams of one burst could swap places */
                age = write_record(f, pfd[i].fd, ntohs(from.sin_port), in_port + i, buf, n);
                arrived = last - (age < 0 ? 0 : age);
                if (arrived < arrived_last[i])
                    arrived = arrived_last[i];
                arrived_last[i] = arrived;
                from_receiver = i == 1 ? ntohs(from.sin_port) != sender_port
                                       : ntohs(from.sin_port) == out_port ||
                                         ntohs(from.sin_port) == out_port + 1;
                if (from_receiver) {
                    enqueue(pfd[1].fd, &sender_rtcp, buf, n, last);
                    rtcp_back++;
                } else if (i == 1) {
                    /* a compound with a BYE waits 500 ms more, so that the
                     * receiver does not stop before the retransmissions of
                     * the last packets reach it */
                    int bye = 0;
                    for (int o = 0; o + 4 <= n; o += 4 + 4 * (buf[o + 2] << 8 | buf[o + 3]))
                        bye |= buf[o + 1] == 203;
                    int64_t out = link_pass(&link, queue, &link_free, arrived, n);
                    if (out < 0) {
                        queue_dropped++;
                    } else {
                        enqueue(pfd[1].fd, &to_rtcp, buf, n, out + (delay + 500 * bye) * 1000);
                        rtcp_fwd++;
                    }
                } else {
                    int drop = 0;
                    rtp_in++;
                    if (n >= 12) {
                        const uint32_t ssrc = (uint32_t)buf[8] << 24 | buf[9] << 16 | buf[10] << 8 | buf[11];
                        int seq = buf[2] << 8 | buf[3];
                        if (!have_media_ssrc) {
                            media_ssrc      = ssrc;
                            have_media_ssrc = 1;
                        }
                        /* only the media stream loses packets: an RFC 4588
                         * RTX stream (another SSRC) passes */
                        if (ssrc == media_ssrc) {
                            drop = !seen[seq] ? forced[seq] || dropped(seq, loss_ppm, burst) :
                                   rtx_loss && hash(seq | (uint32_t)seen[seq] << 16) % 1000000 < (uint32_t)loss_ppm;
                            rtx_dropped += drop && seen[seq];
                            if (seen[seq] < 255)
                                seen[seq]++;
                        } else if (rtx_loss) {
                            drop = hash(seq | (uint32_t)(++seen_rtx[seq]) << 16 | 1u << 31) % 1000000 < (uint32_t)loss_ppm;
                            rtx_dropped += drop;
                        }
                    }
                    if (drop) {
                        rtp_dropped++;
                        if (n >= 12)
                            printf("dropped %d\n", buf[2] << 8 | buf[3]);
                    } else {
                        int64_t out = link_pass(&link, queue, &link_free, arrived, n);
                        if (out < 0) {
                            queue_dropped++;
                            if (n >= 12)
                                printf("qdropped %d\n", buf[2] << 8 | buf[3]);
                        } else {
                            enqueue(pfd[0].fd, &to_rtp, buf, n, out + delay * 1000);
                            rtp_out++;
                        }
                    }
                }
            }
        }
    }
    fclose(f);
    link_series(&link, out);
    printf("rtp_in %ld rtp_dropped %ld rtp_forwarded %ld rtcp_to_receiver %ld rtcp_to_sender %ld retransmissions_dropped %ld queue_dropped %ld\n",
           rtp_in, rtp_dropped, rtp_out, rtcp_fwd, rtcp_back, rtx_dropped, queue_dropped);
    return 0;
}

/* A capture this program wrote: opened past its header, or NULL. */
static FILE *open_capture(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint32_t ghdr[6];

    if (!f || fread(ghdr, sizeof(ghdr), 1, f) != 1 || ghdr[0] != 0xa1b2c3d4) {
        fprintf(stderr, "rtpcap: %s: not a capture\n", path);
        if (f)
            fclose(f);
        return NULL;
    }
    return f;
}

/* The next record into rec and buf (IPv4/UDP headers, then the datagram):
 * its length, 0 at the end, -1 if truncated. */
static int read_record(FILE *f, uint32_t rec[4], uint8_t *buf, int size)
{
    int len;

    if (fread(rec, 4 * sizeof(*rec), 1, f) != 1)
        return 0;
    len = rec[2];
    if (len < 28 || len > size || fread(buf, 1, len, f) != (size_t)len) {
        fprintf(stderr, "rtpcap: truncated capture\n");
        return -1;
    }
    return len;
}

static int dump(int argc, char **argv)
{
    FILE *f = open_capture(argv[2]);
    int port = atoi(argv[3]), norm = argc > 4;
    uint32_t base = norm ? strtoul(argv[4], NULL, 0) : 0, first = 0;
    int have_first = 0, len;
    static uint8_t buf[MAX_DGRAM + 28];
    uint32_t rec[4];

    if (!f)
        return 1;
    while ((len = read_record(f, rec, buf, sizeof(buf))) > 0) {
        int dst = buf[22] << 8 | buf[23];
        if (dst != port)
            continue;
        len -= 28;
        if (norm && len >= 12) {
            uint8_t *ts = buf + 28 + 4;
            uint32_t v = (uint32_t)ts[0] << 24 | ts[1] << 16 | ts[2] << 8 | ts[3];
            if (!have_first) {
                first = v;
                have_first = 1;
            }
            v = v - first + base;
            ts[0] = v >> 24; ts[1] = v >> 16; ts[2] = v >> 8; ts[3] = v;
        }
        printf("%d ", len);
        for (int i = 0; i < len; i++)
            printf("%02x", buf[28 + i]);
        printf("\n");
    }
    return len < 0;
}

static int times(int argc, char **argv)
{
    FILE *f = open_capture(argv[2]);
    int port = atoi(argv[3]), len;
    static uint8_t buf[MAX_DGRAM + 28];
    const uint8_t *r = buf + 28;
    uint32_t rec[4];

    if (!f)
        return 1;
    while ((len = read_record(f, rec, buf, sizeof(buf))) > 0) {
        if ((buf[22] << 8 | buf[23]) != port || len < 28 + 12)
            continue;
        printf("%lld %d %u %d\n", rec[0] * 1000000LL + rec[1], r[2] << 8 | r[3],
               (uint32_t)r[4] << 24 | r[5] << 16 | r[6] << 8 | r[7], len - 28);
    }
    return len < 0;
}

static int stamp(void)
{
    static char line[65536];
    while (fgets(line, sizeof(line), stdin)) {
        struct timeval tv;
        gettimeofday(&tv, NULL);
        printf("%lld %s", tv.tv_sec * 1000000LL + tv.tv_usec, line);
        fflush(stdout);
    }
    return 0;
}

/* rtpcap link-init PATH: the file RTPCAP_LINK names */
static int link_init(const char *path)
{
    SharedLink *sh;
    pthread_mutexattr_t a;
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);

    if (fd < 0 || ftruncate(fd, sizeof(*sh)) < 0 ||
        (sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
        perror("rtpcap: link-init");
        return 1;
    }
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    pthread_mutex_init(&sh->lock, &a);
    sh->link_free = sh->first = 0;
    munmap(sh, sizeof(*sh));
    close(fd);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && !strcmp(argv[1], "link-init"))
        return link_init(argv[2]);
    if (argc >= 8 && !strcmp(argv[1], "capture"))
        return capture(argc, argv);
    if (argc >= 13 && !strcmp(argv[1], "relay"))
        return relay(argc, argv);
    if (argc >= 6 && !strcmp(argv[1], "sink"))
        return sink(argc, argv);
    if (argc >= 4 && !strcmp(argv[1], "dump"))
        return dump(argc, argv);
    if (argc >= 4 && !strcmp(argv[1], "times"))
        return times(argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "stamp"))
        return stamp();
    fprintf(stderr, "usage: rtpcap capture OUT READY MAXPKTS IDLE_MS TOTAL_MS PORT...\n"
                    "       rtpcap sink GRO IDLE_MS TOTAL_MS PORT...\n"
                    "       rtpcap relay OUT READY SEED LOSS_PPM BURST DELAY_MS IDLE_MS TOTAL_MS IN_PORT OUT_PORT SENDER_RTCP\n"
                    "       rtpcap dump IN PORT [TSBASE]\n");
    return 2;
}
