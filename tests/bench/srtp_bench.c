/*
 * SRTP benchmark: CPU per protected RTP packet of this build's ff_srtp
 * (libavformat/srtp.c with patches/: session keys expanded once, the
 * keystream in blocks of 64, HMAC-SHA1 through GnuTLS where FFmpeg has it)
 * against libsrtp2, the reference implementation Janus and GStreamer's
 * srtpenc use, on the same packets: AES_CM_128_HMAC_SHA1_80, one master
 * key and salt, one SSRC, sequence numbers on through their wraps.
 *
 * First both protect the same 70,000 packets (past one wrap of the
 * sequence number) and every output must be byte-identical: a check
 * against an independent implementation, the bench fails otherwise. Then
 * ROUNDS interleaved rounds of N packets each, thread CPU time; the medians
 * in ns per packet and ms per MB (10^6 bytes of RTP), and their ratio.
 *
 *   srtp_bench [SIZE [N [ROUNDS]]]   (1200, 100000, 7)
 * srtp_bench_stock is the same program against the stock peer's
 * libavformat (its srtp.c as FFmpeg ships it).
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <srtp2/srtp.h>

#include "libavformat/srtp.h"
#include "libavutil/intreadwrite.h"


#ifndef FF_LABEL
#define FF_LABEL  "this build"
#endif

#define SSRC      0x12345678
#define CHECK_PKT 70000
#define MAX_ROUNDS 31

/* the master key and salt, as ff_srtp_set_crypto() takes them (base64 of
 * the 30 bytes 0, 1, ..., 29) and as libsrtp2 does */
static const char key_b64[] = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwd";

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void make_packet(uint8_t *p, int size, uint32_t i)
{
    p[0] = 0x80;
    p[1] = 96 | (i % 30 == 29 ? 0x80 : 0);
    AV_WB16(p + 2, i & 0xffff);
    AV_WB32(p + 4, i / 30 * 3600);
    AV_WB32(p + 8, SSRC);
    for (int k = 12; k < size; k++)
        p[k] = (uint8_t)(k * 7 + i);
}

int main(int argc, char **argv)
{
    int size   = argc > 1 ? atoi(argv[1]) : 1200;
    int n      = argc > 2 ? atoi(argv[2]) : 100000;
    int rounds = argc > 3 ? atoi(argv[3]) : 7;
    struct SRTPContext ff = { 0 };
    srtp_t ls;
    srtp_policy_t pol;
    uint8_t key[30], pkt[1500], a[1600], b[1600 + SRTP_MAX_TRAILER_LEN];
    double t_ff[MAX_ROUNDS], t_ls[MAX_ROUNDS], m_ff, m_ls;
    uint32_t seq = 0;

    if (size < 12 || size > 1400 || n < 1 || rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "srtp_bench: SIZE 12-1400, N >= 1, ROUNDS 1-%d\n", MAX_ROUNDS);
        return 2;
    }
    for (int k = 0; k < 30; k++)
        key[k] = k;
    if (ff_srtp_set_crypto(&ff, "SRTP_AES128_CM_HMAC_SHA1_80", key_b64) < 0) {
        fprintf(stderr, "FAIL: ff_srtp_set_crypto\n");
        return 1;
    }
    if (srtp_init() != srtp_err_status_ok) {
        fprintf(stderr, "FAIL: srtp_init\n");
        return 1;
    }
    memset(&pol, 0, sizeof(pol));
    srtp_crypto_policy_set_rtp_default(&pol.rtp);   /* AES_CM_128_HMAC_SHA1_80 */
    srtp_crypto_policy_set_rtcp_default(&pol.rtcp);
    pol.ssrc.type  = ssrc_specific;
    pol.ssrc.value = SSRC;
    pol.key        = key;
    pol.window_size = 1024;
    if (srtp_create(&ls, &pol) != srtp_err_status_ok) {
        fprintf(stderr, "FAIL: srtp_create\n");
        return 1;
    }

    /* the same bytes from both, or the timings compare different work */
    for (int i = 0; i < CHECK_PKT; i++, seq++) {
        int la, lb = size;

        make_packet(pkt, size, seq);
        memcpy(b, pkt, size);
        la = ff_srtp_encrypt(&ff, pkt, size, a, sizeof(a));
        if (srtp_protect(ls, b, &lb) != srtp_err_status_ok || la != lb || la != size + 10 ||
            memcmp(a, b, la)) {
            fprintf(stderr, "FAIL: packet %d (seq %u): ff_srtp %d bytes, libsrtp2 %d, %s\n", i,
                    seq & 0xffff, la, lb, la == lb ? "different bytes" : "different lengths");
            return 1;
        }
    }

    make_packet(pkt, size, 0);
    for (int r = 0; r < rounds; r++) {
        double t0 = cpu_ns();
        for (int i = 0; i < n; i++) {
            AV_WB16(pkt + 2, (seq + i) & 0xffff);
            if (ff_srtp_encrypt(&ff, pkt, size, a, sizeof(a)) != size + 10)
                return 1;
        }
        t_ff[r] = (cpu_ns() - t0) / n;
        t0 = cpu_ns();
        for (int i = 0; i < n; i++) {
            int lb = size;
            /* libsrtp2 protects in place: the copy is the caller's part
             * (ff_srtp writes to another buffer), timed with it */
            memcpy(b, pkt, size);
            AV_WB16(b + 2, (seq + i) & 0xffff);
            if (srtp_protect(ls, b, &lb) != srtp_err_status_ok)
                return 1;
        }
        t_ls[r] = (cpu_ns() - t0) / n;
        seq += n;
    }
    qsort(t_ff, rounds, sizeof(*t_ff), cmp_double);
    qsort(t_ls, rounds, sizeof(*t_ls), cmp_double);
    m_ff = t_ff[rounds / 2];
    m_ls = t_ls[rounds / 2];
    printf("SRTP AES_CM_128_HMAC_SHA1_80, %d-byte RTP packets: %d identical outputs checked; "
           "medians of %d rounds of %d\n", size, CHECK_PKT, rounds, n);
    printf("  ff_srtp (%s)  %7.1f ns/packet  %6.3f ms per MB  (rounds %.1f-%.1f)\n",
           FF_LABEL, m_ff, m_ff / size, t_ff[0], t_ff[rounds - 1]);
    printf("  %-20s %7.1f ns/packet  %6.3f ms per MB  (rounds %.1f-%.1f)\n",
           srtp_get_version_string(), m_ls, m_ls / size, t_ls[0], t_ls[rounds - 1]);
    printf("  ff_srtp / libsrtp2: %.2f\n", m_ff / m_ls);
    srtp_dealloc(ls);
    srtp_shutdown();
    ff_srtp_free(&ff);
    return 0;
}
