/*
 * RTCP a receiver would send, built by hand (independent of lcv_rtcp), for
 * the RTP feedback tests. All traffic on 127.0.0.1, every loop bounded.
 *
 *   rtcpinject pli PORT MEDIA_SSRC
 *   rtcpinject fir PORT MEDIA_SSRC SEQ
 *       One PLI / FIR to 127.0.0.1:PORT; prints the wall-clock time sent, us.
 *   rtcpinject byes PORT MEDIA_SSRC N
 *       N receivers that report once and leave: N compounds, each an RR with
 *       one report block about MEDIA_SSRC and a BYE, from SSRCs 0x7e570000
 *       to 0x7e570000 + N - 1.
 *   rtcpinject remb PORT MEDIA_SSRC BITRATE
 *       One REMB (exponent/mantissa) about MEDIA_SSRC.
 *   rtcpinject twcc PORT MEDIA_SSRC
 *       One transport-cc report: base 100, 2 packets received, deltas 4 and
 *       8 (x 250 us) after a reference time of 64 ms: the last arrives at
 *       67 ms.
 *   rtcpinject nackall RTP_PORT RTCP_PORT MEDIA_SSRC TIMEOUT_MS
 *       Acts as the receiver: NACKs every packet it receives, at once, until
 *       nothing arrives for 1 s; one second after the first packet it also
 *       NACKs the first sequence number (gone from a short history). Prints
 *       the counts.
 *   rtcpinject nackold RTP_PORT RTCP_PORT MEDIA_SSRC AFTER TIMEOUT_MS
 *       Acts as the receiver: once AFTER packets have arrived, NACKs the
 *       first sequence number and the one just received, in one NACK
 *       packet, then watches for 500 ms which of them comes again. Prints
 *       "received N first_resent 0|1 recent_resent 0|1". For the limits of
 *       the sender's history: the first is gone, the recent one is not.
 *   rtcpinject nackrepeat RTP_PORT RTCP_PORT MEDIA_SSRC START_MS TIMEOUT_MS
 *       Acts as the receiver: for 5 packets received START_MS or more after
 *       the first (one every 5), sends a NACK for the packet, the same NACK
 *       again 3 ms later (within any round trip the sender measured: a
 *       receiver that asks again sooner than a round trip), and once more
 *       150 ms later (as for a copy lost on the way: a real repeat); counts
 *       the copies of each that arrive within 300 ms. Prints "nacked N
 *       copies C" (C = 2 N when the early repeat is not answered).
 *   rtcpinject nackfirst RTP_PORT RTCP_PORT MEDIA_SSRC COUNT EVERY TIMEOUT_MS
 *       Acts as the receiver: NACKs every EVERY-th of the first COUNT x
 *       EVERY packets as it arrives (the start of the first keyframe), then
 *       counts for 500 ms the copies that come again. Prints "nacked N
 *       resent M".
 *   rtcpinject spoof PORT MEDIA_SSRC SEQ DURATION_MS EVERY_MS
 *       What a third party would send to steer a sender: every EVERY_MS for
 *       DURATION_MS one compound to 127.0.0.1:PORT of an RR, a REMB of
 *       150 kbit/s, a PLI, a FIR (a new sequence number each time) and a
 *       NACK for the 1,088 sequence numbers from SEQ. Prints "sent N
 *       received M", M the datagrams that came back to its address.
 *   rtcpinject bye PORT SSRC
 *       One compound of an RR and a BYE naming SSRC.
 *   rtcpinject rtpflood PORT SSRC MODE COUNT SIZE PPS
 *       RTP to a receiver (H.264, PT 96, single NAL units of non-IDR
 *       slices): first 50 small packets a frame each (marker, 40 ms apart),
 *       then prints "rest" and waits for a line on stdin, then COUNT packets
 *       of SIZE bytes at PPS a second: MODE nomarker: in order, all of one
 *       timestamp, no marker (access-unit gathering); MODE gap: one sequence
 *       number skipped, then in order, a frame each (the reorder queue).
 *       Prints "sent N".
 *   rtcpinject rtpjump PORT SSRC SEQ N
 *       N RTP packets in a row from sequence number SEQ (H.264, PT 96, a
 *       small non-IDR slice each, marker set, timestamps far from any
 *       real stream's), 1 ms apart: packets that would take a stream over.
 *   rtcpinject rtpstorm PORT SSRC LOCAL SIZE PPS1 JUMP1 SECS1 PPS2 JUMP2 SECS2
 *       From 127.0.0.1:LOCAL, RTP of SIZE bytes to a receiver that answers
 *       its source (rtcp_to_source): 50 packets in order 20 ms apart, then
 *       packets each JUMP1 sequence numbers after the last (999: just
 *       within the restart threshold of 1000), PPS1 a second for SECS1 s,
 *       then PPS2 a second for SECS2 s, each JUMP2 after the last. Counts what comes back to LOCAL + 1 (where the
 *       receiver sends RTCP before it has any from the source) from the
 *       storm's start. Prints "media_bytes M rtcp_bytes R rtcp_datagrams D"
 *       for each of the two phases.
 *   rtcpinject squat PORT MEDIA_SSRC N DURATION_MS EVERY_MS
 *       N receivers that report and never leave: every EVERY_MS for
 *       DURATION_MS an RR from each of SSRCs 0x5a170000 to 0x5a170000 +
 *       N - 1, one report block about MEDIA_SSRC with no LSR (they never
 *       saw an SR). Prints "sent N".
 *   rtcpinject garbage PORT COUNT SEED
 *       COUNT malformed datagrams: random bytes, bad versions, lengths past
 *       the end, truncated feedback, zero lengths, huge report counts.
 *   rtcpinject rr LISTEN_PORT RTCP_PORT MEDIA_SSRC COUNT TIMEOUT_MS
 *       Acts as the receiver's RTCP socket on LISTEN_PORT: for each of COUNT
 *       SRs about MEDIA_SSRC, waits 20 ms and sends an RR to RTCP_PORT whose
 *       LSR/DLSR are exact (the hold time measured), so that the sender's
 *       RTT is the network's alone.
 *   rtcpinject ccfb RTP_PORT RTCP_PORT MEDIA_SSRC TIMEOUT_MS
 *       Acts as an RFC 8888 receiver on RTP_PORT: every 50 ms a CCFB for
 *       MEDIA_SSRC (every sequence number since the last report, up to the
 *       highest received: R bit and arrival time offset) to RTCP_PORT,
 *       until nothing arrives for 1 s. Prints the counts.
 *   rtcpinject nack RTP_PORT RTCP_PORT MEDIA_SSRC COUNT TIMEOUT_MS [RTX_PT]
 *       Acts as the receiver on RTP_PORT: for COUNT received packets (one in
 *       every 10), sends a NACK for its sequence number to RTCP_PORT and
 *       waits for it to come again (same SSRC and sequence, or, with RTX_PT,
 *       an RTX packet whose OSN is that sequence). Prints the count answered
 *       and the latency from NACK to retransmission (median, 90th
 *       percentile, max) in us, and the largest datagram received and the
 *       largest retransmission, in bytes.
 */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static int64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static int64_t wall_us(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return tv.tv_sec * 1000000LL + tv.tv_usec;
}

static void wb16(uint8_t *p, unsigned v) { p[0] = v >> 8; p[1] = v; }
static void wb32(uint8_t *p, uint32_t v) { p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v; }

static struct sockaddr_in lo(int port)
{
    struct sockaddr_in a = { .sin_family = AF_INET };
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
}

/* A socket on 127.0.0.1:port with an 8 MiB receive buffer, for the RTP the
 * sender under test sends here; -1 (and a message) on failure. */
static int rtp_receiver(int port)
{
    struct sockaddr_in a = lo(port);
    int fd = socket(AF_INET, SOCK_DGRAM, 0), sz = 8 << 20;

    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
        perror("rtcpinject: bind");
        return -1;
    }
    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz));
    return fd;
}

/* One RTP packet from fd into r, waiting at most ms: its size, or 0 if
 * none came or it was no RTP version 2 packet. */
static int recv_rtp_wait(int fd, uint8_t *r, int size, int ms)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };
    int n;

    if (poll(&p, 1, ms) <= 0)
        return 0;
    n = recv(fd, r, size, 0);
    return n < 12 || (r[0] & 0xc0) != 0x80 ? 0 : n;
}

/* an RTCP packet (PT 200-204) that came to the RTP port (rtcp-mux) */
static int is_rtcp(const uint8_t *r)
{
    return (r[1] & 0x7f) >= 72 && (r[1] & 0x7f) <= 76;
}

static int recv_rtp(int fd, uint8_t *r, int size)
{
    return recv_rtp_wait(fd, r, size, 100);
}

#define OUR_SSRC 0x5eed0001u
#define FFMIN_US(x) ((x) < 1000 ? (x) : 1000)

static int send_to(int fd, int port, const uint8_t *buf, int len)
{
    struct sockaddr_in a = lo(port);
    return sendto(fd, buf, len, 0, (struct sockaddr *)&a, sizeof(a));
}

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    uint8_t b[1500];

    if (fd < 0)
        return 1;
    if (getenv("RTCPINJECT_FROM")) {
        struct sockaddr_in a = { .sin_family = AF_INET };
        if (inet_pton(AF_INET, getenv("RTCPINJECT_FROM"), &a.sin_addr) != 1 ||
            (ntohl(a.sin_addr.s_addr) >> 24) != 127 ||
            bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
            fprintf(stderr, "rtcpinject: RTCPINJECT_FROM %s: not a usable 127.0.0.0/8 address\n",
                    getenv("RTCPINJECT_FROM"));
            return 1;
        }
    }
    if (argc >= 7 && !strcmp(argv[1], "spoof")) {
        uint32_t media = strtoul(argv[3], NULL, 0);
        unsigned seq = strtoul(argv[4], NULL, 0);
        int64_t end = now_us() + atoll(argv[5]) * 1000, every = atoll(argv[6]) * 1000;
        int sent = 0, got = 0, n;
        uint8_t r[1500];
        uint64_t br = 150000;
        int exp = 0;
        if (every < 10000 || atoll(argv[5]) > 60000)
            return 1;
        while (br >> exp > 0x3ffff)
            exp++;
        for (int k = 0; k < 600 && now_us() < end; k++) {
            uint8_t *q = b;
            /* RR, no report block */
            q[0] = 0x80; q[1] = 201; wb16(q + 2, 1); wb32(q + 4, OUR_SSRC + 7); q += 8;
            /* REMB */
            q[0] = 0x80 | 15; q[1] = 206; wb16(q + 2, 5);
            wb32(q + 4, OUR_SSRC + 7); wb32(q + 8, 0); memcpy(q + 12, "REMB", 4);
            q[16] = 1; q[17] = exp << 2 | (uint32_t)(br >> exp) >> 16;
            wb16(q + 18, (br >> exp) & 0xffff); wb32(q + 20, media); q += 24;
            /* PLI */
            q[0] = 0x80 | 1; q[1] = 206; wb16(q + 2, 2);
            wb32(q + 4, OUR_SSRC + 7); wb32(q + 8, media); q += 12;
            /* FIR, a new request each time */
            q[0] = 0x80 | 4; q[1] = 206; wb16(q + 2, 4);
            wb32(q + 4, OUR_SSRC + 7); wb32(q + 8, 0); wb32(q + 12, media);
            q[16] = k; q[17] = q[18] = q[19] = 0; q += 20;
            /* generic NACK: 64 items of 17 */
            q[0] = 0x80 | 1; q[1] = 205; wb16(q + 2, 2 + 64);
            wb32(q + 4, OUR_SSRC + 7); wb32(q + 8, media);
            for (int i = 0; i < 64; i++) {
                wb16(q + 12 + 4 * i, (seq + 17 * i) & 0xffff);
                wb16(q + 14 + 4 * i, 0xffff);
            }
            q += 12 + 4 * 64;
            n = q - b;
            if (send_to(fd, atoi(argv[2]), b, n) != n)
                return 1;
            sent++;
            /* whatever comes back to this address meanwhile: a receiver
             * that sends its RTCP to whoever wrote last */
            for (int64_t t = now_us(), until = t + every; t < until; t = now_us()) {
                struct pollfd p = { .fd = fd, .events = POLLIN };
                if (poll(&p, 1, (until - t + 999) / 1000) > 0 && recv(fd, r, sizeof(r), 0) > 0)
                    got++;
            }
        }
        printf("sent %d received %d\n", sent, got);
        return 0;
    }
    if (argc >= 12 && !strcmp(argv[1], "rtpstorm")) {
        uint32_t ssrc = strtoul(argv[3], NULL, 0), ts = 90000;
        int local = atoi(argv[4]), size = atoi(argv[5]), rfd = rtp_receiver(local + 1);
        struct sockaddr_in a = lo(local);
        int64_t media = 0, rtcp = 0, dgrams = 0;
        uint16_t seq = 1000;
        static uint8_t p[1500], r[1500];
        if (rfd < 0 || size < 20 || size > 1500 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
            return 1;
        memset(p, 0, sizeof(p));
        for (int phase = 0; phase < 3; phase++) {
            int pps = phase == 0 ? 50 : atoi(argv[phase == 1 ? 6 : 9]);
            int jump = phase == 0 ? 1 : atoi(argv[phase == 1 ? 7 : 10]);
            int64_t n = phase == 0 ? 50 : (int64_t)pps * atoi(argv[phase == 1 ? 8 : 11]);
            int64_t every = 1000000 / (pps > 0 ? pps : 1), next = now_us();
            if (n > 200000)
                return 1;
            for (int64_t i = 0; i < n; i++) {
                p[0] = 0x80; p[1] = 0x80 | 96; wb16(p + 2, seq); wb32(p + 4, ts); wb32(p + 8, ssrc);
                p[12] = 0x41;
                seq += jump;
                ts  += 3600;
                if (send_to(fd, atoi(argv[2]), p, size) == size && phase)
                    media += size;
                next += every;
                for (;;) {
                    struct pollfd q = { .fd = rfd, .events = POLLIN };
                    int64_t w = next - now_us();
                    int k;
                    if (poll(&q, 1, w > 0 ? (int)((w + 999) / 1000) : 0) <= 0) {
                        if (now_us() >= next)
                            break;
                        continue;
                    }
                    if ((k = recv(rfd, r, sizeof(r), 0)) > 0 && phase) {
                        rtcp += k;
                        dgrams++;
                    }
                }
            }
            if (phase) {
                printf("media_bytes %lld rtcp_bytes %lld rtcp_datagrams %lld\n",
                       (long long)media, (long long)rtcp, (long long)dgrams);
                fflush(stdout);
                media = rtcp = dgrams = 0;
            }
        }
        return 0;
    }
    if (argc >= 7 && !strcmp(argv[1], "squat")) {
        int n = atoi(argv[4]), sent = 0;
        int64_t end = now_us() + atoll(argv[5]) * 1000, every = atoll(argv[6]) * 1000;
        if (n > 1000 || every < 10000 || atoll(argv[5]) > 60000)
            return 1;
        while (now_us() < end) {
            for (int k = 0; k < n; k++) {
                b[0] = 0x81; b[1] = 201; wb16(b + 2, 7);
                wb32(b + 4, 0x5a170000u + k); wb32(b + 8, strtoul(argv[3], NULL, 0));
                memset(b + 12, 0, 20);
                if (send_to(fd, atoi(argv[2]), b, 32) == 32)
                    sent++;
            }
            usleep(every);
        }
        printf("sent %d\n", sent);
        return 0;
    }
    if (argc >= 6 && !strcmp(argv[1], "rtpjump")) {
        uint32_t ssrc = strtoul(argv[3], NULL, 0);
        unsigned seq = strtoul(argv[4], NULL, 0);
        int n = atoi(argv[5]);
        for (int i = 0; i < n && i < 1000; i++) {
            memset(b, 0, 200);
            b[0] = 0x80; b[1] = 0x80 | 96; wb16(b + 2, seq + i); wb32(b + 4, 0x70000000u + 3600 * i);
            wb32(b + 8, ssrc); b[12] = 0x41; memset(b + 13, 0x5a, 187);
            if (send_to(fd, atoi(argv[2]), b, 200) != 200)
                return 1;
            usleep(1000);
        }
        return 0;
    }
    if (argc >= 8 && !strcmp(argv[1], "rtpflood")) {
        uint32_t ssrc = strtoul(argv[3], NULL, 0), ts = 90000;
        int gap = !strcmp(argv[4], "gap"), count = atoi(argv[5]), size = atoi(argv[6]);
        int64_t every = 1000000 / (atoi(argv[7]) > 0 ? atoi(argv[7]) : 1), next;
        static uint8_t p[65507];
        uint16_t seq = 1000;
        char line[16];
        int sent = 0;
        if (count > 100000 || size < 20 || size > (int)sizeof(p))
            return 1;
        for (int i = 0; i < 50; i++, ts += 3600) {
            memset(p, 0, 200);
            p[0] = 0x80; p[1] = 0x80 | 96; wb16(p + 2, seq++); wb32(p + 4, ts); wb32(p + 8, ssrc);
            p[12] = 0x41;               /* NRI 2, type 1: a non-IDR slice */
            memset(p + 13, 0x5a, 187);
            send_to(fd, atoi(argv[2]), p, 200);
            usleep(40000);
        }
        printf("rest\n");
        fflush(stdout);
        if (!fgets(line, sizeof(line), stdin))
            return 1;
        if (gap)
            seq++;
        memset(p + 13, 0x5a, size - 13);
        next = now_us();
        for (int i = 0; i < count; i++) {
            if (gap)
                ts += 3600;
            p[0] = 0x80; p[1] = (gap ? 0x80 : 0) | 96; wb16(p + 2, seq++); wb32(p + 4, ts);
            wb32(p + 8, ssrc); p[12] = 0x41;
            if (send_to(fd, atoi(argv[2]), p, size) == size)
                sent++;
            next += every;
            while (now_us() < next)
                usleep(FFMIN_US(next - now_us()));
        }
        printf("sent %d\n", sent);
        return 0;
    }
    if (argc >= 4 && !strcmp(argv[1], "bye")) {
        /* a compound: an RR without report blocks, then a BYE naming SSRC */
        b[0] = 0x80; b[1] = 201; wb16(b + 2, 1); wb32(b + 4, OUR_SSRC + 7);
        b[8] = 0x81; b[9] = 203; wb16(b + 10, 1); wb32(b + 12, strtoul(argv[3], NULL, 0));
        return send_to(fd, atoi(argv[2]), b, 16) != 16;
    }
    if (argc >= 4 && !strcmp(argv[1], "pli")) {
        b[0] = 0x80 | 1; b[1] = 206; wb16(b + 2, 2);
        wb32(b + 4, OUR_SSRC); wb32(b + 8, strtoul(argv[3], NULL, 0));
        printf("%lld\n", (long long)wall_us());
        return send_to(fd, atoi(argv[2]), b, 12) != 12;
    }
    if (argc >= 5 && !strcmp(argv[1], "byes")) {
        int n = atoi(argv[4]);
        for (int k = 0; k < n && k < 1000; k++) {
            uint32_t me = 0x7e570000u + k;
            /* RR, one report block (all zero but its SSRC), then BYE */
            b[0] = 0x81; b[1] = 201; wb16(b + 2, 7);
            wb32(b + 4, me); wb32(b + 8, strtoul(argv[3], NULL, 0));
            memset(b + 12, 0, 20);
            b[32] = 0x81; b[33] = 203; wb16(b + 34, 1); wb32(b + 36, me);
            if (send_to(fd, atoi(argv[2]), b, 40) != 40)
                return 1;
            usleep(1000);
        }
        return 0;
    }
    if (argc >= 5 && !strcmp(argv[1], "fir")) {
        b[0] = 0x80 | 4; b[1] = 206; wb16(b + 2, 4);
        wb32(b + 4, OUR_SSRC); wb32(b + 8, 0);
        wb32(b + 12, strtoul(argv[3], NULL, 0));
        b[16] = atoi(argv[4]); b[17] = b[18] = b[19] = 0;
        printf("%lld\n", (long long)wall_us());
        return send_to(fd, atoi(argv[2]), b, 20) != 20;
    }
    if (argc >= 5 && !strcmp(argv[1], "remb")) {
        uint64_t br = strtoull(argv[4], NULL, 0);
        int exp = 0;
        while (br >> exp > 0x3ffff)
            exp++;
        b[0] = 0x80 | 15; b[1] = 206; wb16(b + 2, 5);
        wb32(b + 4, OUR_SSRC); wb32(b + 8, 0);
        memcpy(b + 12, "REMB", 4);
        b[16] = 1;
        b[17] = exp << 2 | (uint32_t)(br >> exp) >> 16;
        wb16(b + 18, (br >> exp) & 0xffff);
        wb32(b + 20, strtoul(argv[3], NULL, 0));
        return send_to(fd, atoi(argv[2]), b, 24) != 24;
    }
    if (argc >= 4 && !strcmp(argv[1], "twcc")) {
        b[0] = 0x80 | 15; b[1] = 205; wb16(b + 2, 5);
        wb32(b + 4, OUR_SSRC); wb32(b + 8, strtoul(argv[3], NULL, 0));
        wb16(b + 12, 100);              /* base sequence */
        wb16(b + 14, 2);                /* status count */
        b[16] = 0; b[17] = 0; b[18] = 1; /* reference time: 1 x 64 ms */
        b[19] = 0;                      /* feedback count */
        wb16(b + 20, 0x2002);           /* run length: small delta x 2 */
        b[22] = 4; b[23] = 8;           /* receive deltas, 250 us units */
        return send_to(fd, atoi(argv[2]), b, 24) != 24;
    }
    if (argc >= 7 && !strcmp(argv[1], "nackrepeat")) {
        int rfd = rtp_receiver(atoi(argv[2])), rtcp = atoi(argv[3]);
        uint32_t ssrc = strtoul(argv[4], NULL, 0);
        int64_t start = atoll(argv[5]) * 1000, deadline = now_us() + atoll(argv[6]) * 1000;
        int64_t t_first = 0, t_nack = 0;
        int target = -1, stage = 0, nacked = 0, copies = 0, seen = 0;

        if (rfd < 0)
            return 1;
        b[0] = 0x81; b[1] = 205; wb16(b + 2, 3);
        wb32(b + 4, OUR_SSRC); wb32(b + 8, ssrc);
        while (now_us() < deadline && nacked <= 5) {
            uint8_t r[65536];
            /* 1 ms polls while a NACK's repeats are due */
            int n = recv_rtp_wait(rfd, r, sizeof(r), target >= 0 ? 1 : 100);
            int seq = n ? r[2] << 8 | r[3] : -1;
            int64_t t = now_us();

            if (!t_first && n)
                t_first = t;
            if (target >= 0) {
                /* the same sequence number again: a resend */
                copies += n && seq == target && !is_rtcp(r);
                if (stage == 1 && t - t_nack >= 3000) {
                    send_to(fd, rtcp, b, 16);               /* early repeat */
                    stage = 2;
                } else if (stage == 2 && t - t_nack >= 150000) {
                    send_to(fd, rtcp, b, 16);               /* real repeat */
                    stage = 3;
                } else if (stage == 3 && t - t_nack >= 300000) {
                    target = -1;
                }
                continue;
            }
            if (nacked == 5)
                break;
            if (!n || is_rtcp(r) || t - t_first < start || ++seen % 5)
                continue;
            target = seq;
            wb16(b + 12, seq); wb16(b + 14, 0);
            send_to(fd, rtcp, b, 16);
            t_nack = t;
            stage  = 1;
            nacked++;
        }
        printf("nacked %d copies %d\n", nacked, copies);
        return nacked != 5;
    }
    if (argc >= 8 && !strcmp(argv[1], "nackfirst")) {
        int rfd = rtp_receiver(atoi(argv[2])), rtcp = atoi(argv[3]), count = atoi(argv[5]);
        int every = atoi(argv[6]);
        uint32_t ssrc = strtoul(argv[4], NULL, 0);
        int64_t deadline = now_us() + atoll(argv[7]) * 1000, t_last = 0;
        int nacked = 0, resent = 0, first = -1;
        uint8_t got[65536] = { 0 };

        if (rfd < 0 || count < 1 || every < 1 || count * every > 30000)
            return 1;
        b[0] = 0x81; b[1] = 205; wb16(b + 2, 3);
        wb32(b + 4, OUR_SSRC); wb32(b + 8, ssrc);
        while (now_us() < deadline && (!t_last || now_us() - t_last < 500000)) {
            uint8_t r[65536];
            int seq;
            if (!recv_rtp(rfd, r, sizeof(r)) || is_rtcp(r))
                continue;
            seq = r[2] << 8 | r[3];
            if (first < 0)
                first = seq;
            if ((uint16_t)(seq - first) >= count * every || (uint16_t)(seq - first) % every)
                continue;
            if (got[seq]++) {           /* seen before: a resend (a second
                                         * copy under loss not counted) */
                resent += got[seq] == 2;
                continue;
            }
            wb16(b + 12, seq); wb16(b + 14, 0);
            send_to(fd, rtcp, b, 16);
            if (++nacked == count)
                t_last = now_us();
        }
        printf("nacked %d resent %d\n", nacked, resent);
        return nacked != count;
    }
    if (argc >= 7 && !strcmp(argv[1], "nackold")) {
        int rfd = rtp_receiver(atoi(argv[2])), first = -1, recent = -1;
        uint32_t ssrc = strtoul(argv[4], NULL, 0);
        long after = atol(argv[5]), rx = 0;
        int64_t deadline = now_us() + atoll(argv[6]) * 1000, t_sent = 0;
        int first_resent = 0, recent_resent = 0;

        if (rfd < 0)
            return 1;
        while (now_us() < deadline && (!t_sent || now_us() - t_sent < 500000)) {
            uint8_t r[65536];
            int seq;
            if (!recv_rtp(rfd, r, sizeof(r)) || is_rtcp(r))
                continue;
            seq = r[2] << 8 | r[3];
            if (t_sent) {   /* a resend: its number came before */
                first_resent  |= seq == first;
                recent_resent |= seq == recent;
                continue;
            }
            if (first < 0)
                first = seq;
            if (++rx < after)
                continue;
            recent = seq;
            b[0] = 0x81; b[1] = 205; wb16(b + 2, 4);
            wb32(b + 4, OUR_SSRC); wb32(b + 8, ssrc);
            wb16(b + 12, first);  wb16(b + 14, 0);
            wb16(b + 16, recent); wb16(b + 18, 0);
            send_to(fd, atoi(argv[3]), b, 20);
            t_sent = now_us();
        }
        printf("received %ld first_resent %d recent_resent %d\n", rx, first_resent, recent_resent);
        return !t_sent;
    }
    if (argc >= 6 && !strcmp(argv[1], "nackall")) {
        int rfd = rtp_receiver(atoi(argv[2])), first = -1;
        uint32_t ssrc = strtoul(argv[4], NULL, 0);
        int64_t deadline = now_us() + atoll(argv[5]) * 1000, last = 0, t_first = 0;
        int old_sent = 0;
        long rx = 0, nacks = 0;

        if (rfd < 0)
            return 1;
        while (now_us() < deadline && (!last || now_us() - last < 1000000)) {
            uint8_t r[65536];
            int seq;
            if (!recv_rtp(rfd, r, sizeof(r)))
                continue;
            last = now_us();
            rx++;
            seq = r[2] << 8 | r[3];
            if (first < 0) {
                first   = seq;
                t_first = last;
            }
            if (!old_sent && last - t_first > 1000000) {
                seq = first;
                old_sent = 1;
            }
            b[0] = 0x81; b[1] = 205; wb16(b + 2, 3);
            wb32(b + 4, OUR_SSRC); wb32(b + 8, ssrc);
            wb16(b + 12, seq); wb16(b + 14, 0);
            send_to(fd, atoi(argv[3]), b, 16);
            nacks++;
        }
        printf("received %ld nacks %ld\n", rx, nacks);
        return 0;
    }
    if (argc >= 5 && !strcmp(argv[1], "garbage")) {
        int port = atoi(argv[2]), count = atoi(argv[3]);
        srand(atoi(argv[4]));
        for (int i = 0; i < count; i++) {
            int len;
            switch (i % 6) {
            case 0:                             /* random bytes */
                len = 1 + rand() % 200;
                for (int j = 0; j < len; j++)
                    b[j] = rand();
                break;
            case 1:                             /* version 1 RR */
                b[0] = 0x40; b[1] = 201; wb16(b + 2, 1); wb32(b + 4, OUR_SSRC); len = 8;
                break;
            case 2:                             /* length past the end */
                b[0] = 0x81; b[1] = 201; wb16(b + 2, 200); wb32(b + 4, OUR_SSRC); len = 8;
                break;
            case 3:                             /* NACK without its FCI */
                b[0] = 0x81; b[1] = 205; wb16(b + 2, 2); wb32(b + 4, OUR_SSRC);
                wb32(b + 8, 0x12345678); len = 12;
                break;
            case 4:                             /* 31 report blocks in 8 bytes */
                b[0] = 0x9f; b[1] = 201; wb16(b + 2, 1); wb32(b + 4, OUR_SSRC); len = 8;
                break;
            default:                            /* zero length, then junk */
                b[0] = 0x80; b[1] = 200; wb16(b + 2, 0); b[4] = 0xff; len = 5;
                break;
            }
            send_to(fd, port, b, len);
            if (i % 50 == 49)
                usleep(1000);
        }
        return 0;
    }
    if (argc >= 7 && !strcmp(argv[1], "rr")) {
        struct sockaddr_in a = lo(atoi(argv[2]));
        int lfd = socket(AF_INET, SOCK_DGRAM, 0), count = atoi(argv[5]), done = 0;
        uint32_t ssrc = strtoul(argv[4], NULL, 0);
        int64_t deadline = now_us() + atoll(argv[6]) * 1000;

        if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) < 0) {
            perror("rtcpinject: bind");
            return 1;
        }
        while (done < count && now_us() < deadline) {
            struct pollfd p = { .fd = lfd, .events = POLLIN };
            uint8_t r[1500];
            int n;
            int64_t t_arr;
            uint32_t lsr, dlsr;
            if (poll(&p, 1, 100) <= 0)
                continue;
            n = recv(lfd, r, sizeof(r), 0);
            t_arr = now_us();
            if (n < 28 || r[1] != 200 ||
                ((uint32_t)r[4] << 24 | r[5] << 16 | r[6] << 8 | r[7]) != ssrc)
                continue;
            lsr = (uint32_t)r[10] << 24 | r[11] << 16 | r[12] << 8 | r[13];
            usleep(20000);
            /* RR with one report block about ssrc */
            b[0] = 0x81; b[1] = 201; wb16(b + 2, 7);
            wb32(b + 4, OUR_SSRC); wb32(b + 8, ssrc);
            memset(b + 12, 0, 12);
            wb32(b + 24, lsr);
            dlsr = (uint32_t)((now_us() - t_arr) * 65536 / 1000000);
            wb32(b + 28, dlsr);
            send_to(fd, atoi(argv[3]), b, 32);
            done++;
        }
        printf("rrs %d\n", done);
        return done < count;
    }
    if (argc >= 6 && !strcmp(argv[1], "ccfb")) {
        /* RFC 8888 feedback every 50 ms: one report block for the media
         * SSRC, every sequence number since the last report up to the
         * highest received, R and ATO (1/1024 s before the report
         * timestamp, the compact NTP time of sending it) */
        static int64_t arr[65536];
        static uint8_t got[65536];
        int rfd = rtp_receiver(atoi(argv[2])), port = atoi(argv[3]);
        uint32_t ssrc = strtoul(argv[4], NULL, 0);
        int64_t limit = atoll(argv[5]) * 1000, start = now_us(), last_rx = 0, next = 0;
        int have = 0, begin = 0, hi = 0;
        long reports = 0, packets = 0, reported = 0;
        uint8_t r[2048];

        if (rfd < 0)
            return 1;
        while (now_us() - start < limit && (!last_rx || now_us() - last_rx < 1000000)) {
            struct pollfd pf = { .fd = rfd, .events = POLLIN };
            if (poll(&pf, 1, 5) > 0) {
                int n = recv(rfd, r, sizeof(r), 0);
                if (n >= 12 && (r[0] & 0xc0) == 0x80 &&
                    ((uint32_t)r[8] << 24 | r[9] << 16 | r[10] << 8 | r[11]) == ssrc) {
                    int seq = r[2] << 8 | r[3];
                    if (!have) {
                        have = 1;
                        begin = hi = seq;
                    }
                    if ((int16_t)(seq - hi) > 0)
                        hi = seq;
                    if ((int16_t)(seq - begin) >= 0) {
                        got[seq] = 1;
                        arr[seq] = wall_us();
                    }
                    last_rx = now_us();
                    packets++;
                }
            }
            if (have && now_us() >= next && (int16_t)(hi - begin) >= 0) {
                int64_t t = wall_us();
                int count = (uint16_t)(hi - begin) + 1, len;
                uint32_t ntp;
                if (count > 500)
                    count = 500;
                ntp = (uint32_t)(((t / 1000000 + 2208988800LL) & 0xffff) << 16 |
                                 ((t % 1000000) * 65536 / 1000000));
                len = 4 + 4 + 8 + ((count + 1) / 2) * 4 + 4;
                memset(b, 0, sizeof(b));
                b[0] = 0x80 | 11; b[1] = 205; wb16(b + 2, len / 4 - 1);
                wb32(b + 4, OUR_SSRC);
                wb32(b + 8, ssrc); wb16(b + 12, begin); wb16(b + 14, count);
                for (int i = 0; i < count; i++) {
                    int seq = (begin + i) & 0xffff;
                    unsigned m = 0;
                    if (got[seq]) {
                        int64_t ato = (t - arr[seq]) * 1024 / 1000000;
                        m = 0x8000 | (ato > 0x1ffe ? 0x1ffe : ato);
                    }
                    wb16(b + 16 + 2 * i, m);
                    got[seq] = 0;
                }
                wb32(b + len - 4, ntp);
                if (send_to(fd, port, b, len) == len) {
                    reports++;
                    reported += count;
                }
                begin = (begin + count) & 0xffff;
                next  = now_us() + 50000;
            }
        }
        printf("packets %ld reports %ld reported %ld\n", packets, reports, reported);
        return !reports;
    }
    if (argc >= 7 && !strcmp(argv[1], "nack")) {
        int rtp_port = atoi(argv[2]), rtcp_port = atoi(argv[3]);
        uint32_t ssrc = strtoul(argv[4], NULL, 0);
        int count = atoi(argv[5]), rtx_pt = argc > 7 ? atoi(argv[7]) : -1;
        int64_t deadline = now_us() + atoll(argv[6]) * 1000, *lat;
        int rfd = rtp_receiver(rtp_port), sent = 0, answered = 0, seen = 0;
        int waiting = -1, max_bytes = 0, max_resent = 0;
        int64_t t_sent = 0;

        if (rfd < 0 || !(lat = calloc(count, sizeof(*lat))))
            return 1;
        while (answered < count && now_us() < deadline) {
            uint8_t r[65536];
            int n, seq;
            if (!(n = recv_rtp(rfd, r, sizeof(r))))
                continue;
            seq = r[2] << 8 | r[3];
            max_bytes = n > max_bytes ? n : max_bytes;
            if (waiting >= 0) {
                uint32_t s = (uint32_t)r[8] << 24 | r[9] << 16 | r[10] << 8 | r[11];
                /* the OSN follows the header: CSRCs and extension included */
                int h = 12 + 4 * (r[0] & 0x0f);
                if ((r[0] & 0x10) && n >= h + 4)
                    h += 4 + 4 * (r[h + 2] << 8 | r[h + 3]);
                int is_rtx = rtx_pt >= 0 && (r[1] & 0x7f) == rtx_pt && n >= h + 2;
                if ((is_rtx && (r[h] << 8 | r[h + 1]) == waiting) ||
                    (!is_rtx && s == ssrc && seq == waiting)) {
                    lat[answered++] = now_us() - t_sent;
                    max_resent = n > max_resent ? n : max_resent;
                    waiting = -1;
                }
                if (waiting >= 0 && now_us() - t_sent > 500000)
                    waiting = -1;       /* lost: NACK another */
                continue;
            }
            if ((r[1] & 0x7f) >= 72 && (r[1] & 0x7f) <= 76)
                continue;
            if (++seen % 10)
                continue;
            /* NACK this packet: PID = seq, BLP = 0 */
            b[0] = 0x81; b[1] = 205; wb16(b + 2, 3);
            wb32(b + 4, OUR_SSRC); wb32(b + 8, ssrc);
            wb16(b + 12, seq); wb16(b + 14, 0);
            t_sent  = now_us();
            waiting = seq;
            send_to(fd, rtcp_port, b, 16);
            sent++;
        }
        qsort(lat, answered, sizeof(*lat), cmp64);
        printf("nacks %d answered %d median_us %lld p90_us %lld max_us %lld "
               "max_bytes %d max_resent_bytes %d\n", sent, answered,
               (long long)(answered ? lat[answered / 2] : -1),
               (long long)(answered ? lat[answered * 9 / 10] : -1),
               (long long)(answered ? lat[answered - 1] : -1), max_bytes, max_resent);
        free(lat);
        return answered < count;
    }
    fprintf(stderr, "usage: see the comment at the top of rtcpinject.c\n");
    return 2;
}
