/*
 * lcv_rtcp benchmark: ns per datagram to take a pooled context, parse and
 * validate the datagram (every length of every packet), decode every field
 * of every packet, and release the context; the same without the decoding;
 * the parse alone into a context that is not pooled (the difference is what
 * the pool costs); and heap allocations per datagram when the
 * malloc-counting shim is preloaded. The datagrams:
 *   1. ../shared/data/rtcp/pion-unmarshal-bench.bin (pion's BenchmarkUnmarshal input)
 *   2. SR + SDES CNAME
 *   3. RR + generic NACK for 20 losses
 *   4. TWCC for 100 packets
 *
 *   rtcp_bench PION_FILE          print the table
 *   rtcp_bench PION_FILE dump DIR write the four datagrams for the pion peer
 */

#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define main lcvrtcp_test_main
#include "libavformat/tests/lcvrtcp.c"
#undef main

/* What a consumer does with a datagram, and what pion's Unmarshal does:
 * decode every field of every packet into structs (strings and payloads
 * as pointer and length, where pion copies them). */
static uint64_t decode(const LCVRTCPContext *ctx)
{
    uint64_t sum = 0;

    for (int i = 0; i < ctx->nb_packets; i++) {
        const LCVRTCPPacket *p = &ctx->packets[i];
        LCVRTCPIter it;
        LCVRTCPReportBlock rb;
        LCVRTCPSdesItem si;
        LCVRTCPTwcc tw;
        LCVRTCPTwccItem ti;
        uint16_t seq;

        sum += p->ssrc;
        switch (p->type) {
        case LCV_RTCP_SR:
        case LCV_RTCP_RR:
            for (int k = 0; k < p->rr.nb_reports; k++) {
                lcv_rtcp_report_block(p, k, &rb);
                sum += rb.ssrc + rb.highest_seq + rb.jitter + rb.lsr + rb.dlsr + rb.cumulative_lost;
            }
            break;
        case LCV_RTCP_SDES:
            lcv_rtcp_iter_init(&it, p);
            while (lcv_rtcp_sdes_next(&it, &si))
                sum += si.ssrc + si.type + si.len + (uintptr_t)si.value;
            break;
        case LCV_RTCP_BYE:
            sum += p->bye.nb_ssrc + p->bye.reason_len;
            break;
        case LCV_RTCP_APP:
            sum += p->app.payload_size + p->app.name[0];
            break;
        case LCV_RTCP_RTPFB:
            if (p->fmt == LCV_RTPFB_NACK) {
                lcv_rtcp_iter_init(&it, p);
                while (lcv_rtcp_nack_next(&it, &seq))
                    sum += seq;
            } else if (p->fmt == LCV_RTPFB_TWCC) {
                lcv_rtcp_iter_init(&it, p);
                lcv_rtcp_twcc(p, &tw);
                sum += tw.base_seq;
                while (lcv_rtcp_twcc_next(&it, &ti))
                    sum += ti.arrival_us;
            }
            sum += p->fb.media_ssrc;
            break;
        case LCV_RTCP_PSFB:
            sum += p->fb.media_ssrc;
            break;
        }
    }
    return sum;
}

#include "nstime.h"

/* iters times what a consumer does with a pooled context; the result of
 * the last parse in *n */
static uint64_t full_round(LCVRTCPPool *pool, const uint8_t *data, int size, int flags,
                           int iters, int *n)
{
    uint64_t sum = 0;

    for (int k = 0; k < iters; k++) {
        LCVRTCPContext *ctx = lcv_rtcp_pool_get(pool);
        *n = lcv_rtcp_parse(ctx, data, size, flags);
        sum += decode(ctx);
        lcv_rtcp_context_release(&ctx);
    }
    return sum;
}

typedef struct Datagram {
    const char *name;
    uint8_t data[2048];
    int size;
    int flags;
} Datagram;

static int make_datagrams(Datagram *d, const char *pion_file)
{
    FILE *f = fopen(pion_file, "rb");
    LCVRTCPWriter w;
    LCVRTCPReportBlock rb = { .ssrc = 2, .fraction_lost = 12, .cumulative_lost = 300,
                              .highest_seq = 70000, .jitter = 40, .lsr = 0x12345678, .dlsr = 1000 };
    LCVRTCPSdesItem cname = { .ssrc = 1, .type = LCV_SDES_CNAME,
                              .value = (const uint8_t *)"{9c00eb92-1afb-9d49-a47d-91f64eee69f5}", .len = 38 };
    uint16_t lost[20];
    LCVRTCPTwcc tw = { .base_seq = 1000, .status_count = 100, .reference_time = 12345, .fb_count = 3 };
    LCVRTCPTwccItem items[100];

    d[0].name = "pion datagram";
    if (!f) {
        fprintf(stderr, "cannot open %s\n", pion_file);
        return -1;
    }
    d[0].size = fread(d[0].data, 1, sizeof(d[0].data), f);
    fclose(f);

    d[1].name = "SR + SDES";
    lcv_rtcp_writer_init(&w, d[1].data, sizeof(d[1].data));
    lcv_rtcp_write_sr(&w, 1, 0x83aa7e8000000000ULL, 90000, 1000, 1200000, &rb, 1);
    lcv_rtcp_write_sdes(&w, &cname, 1);
    d[1].size = lcv_rtcp_writer_finish(&w, 4);

    d[2].name = "RR + NACK, 20 losses";
    for (int i = 0; i < 20; i++)
        lost[i] = 5000 + i * 3;         /* spread over several PID/BLP items */
    lcv_rtcp_writer_init(&w, d[2].data, sizeof(d[2].data));
    lcv_rtcp_write_rr(&w, 1, &rb, 1);
    lcv_rtcp_write_nack(&w, 1, 2, lost, 20);
    d[2].size = lcv_rtcp_writer_finish(&w, 4);

    d[3].name = "TWCC, 100 packets";
    d[3].flags = LCV_RTCP_FLAG_REDUCED_SIZE;    /* sent alone, as browsers do */
    for (int i = 0; i < 100; i++) {
        items[i].status = i % 17 == 5 ? 0 : i % 23 == 7 ? 2 : 1;
        items[i].delta  = items[i].status == 2 ? -40 : items[i].status ? 4 + i % 9 : 0;
    }
    lcv_rtcp_writer_init(&w, d[3].data, sizeof(d[3].data));
    lcv_rtcp_write_twcc(&w, 1, 2, &tw, items);
    d[3].size = lcv_rtcp_writer_finish(&w, 4);
    for (int i = 0; i < 4; i++)
        if (d[i].size <= 0)
            return -1;
    return 0;
}

int main(int argc, char **argv)
{
    uint64_t (*count)(void) = (uint64_t (*)(void))dlsym(RTLD_DEFAULT, "malloc_count_get");
    Datagram d[4];
    LCVRTCPPool *pool;
    volatile uint64_t sink = 0;

    if (argc < 2 || make_datagrams(d, argv[1]) < 0)
        return 1;
    if (argc > 3 && !strcmp(argv[2], "dump")) {
        for (int i = 0; i < 4; i++) {
            char path[1024];
            FILE *f;
            snprintf(path, sizeof(path), "%s/%d.rtcp", argv[3], i + 1);
            if (!(f = fopen(path, "wb")))
                return 1;
            fwrite(d[i].data, 1, d[i].size, f);
            fclose(f);
        }
        return 0;
    }
    pool = lcv_rtcp_pool_alloc(0);
    if (!pool)
        return 1;

    printf("| datagram | bytes | packets | ns/op (parse + decode all) | ns/op (parse only) "
           "| ns/op (parse only, a context of its own) | allocs/op |\n");
    printf("|---|--:|--:|--:|--:|--:|--:|\n");
    for (int i = 0; i < 4; i++) {
        /* 31 rounds of about 20 ms per method, the median round: a few
         * milliseconds showed the state of the shared machine (25-38 ns for
         * datagram 1 from one run of 7 x 5 ms to the next) */
        enum { reps = 31 };
        double full[reps], only[reps], nopool[reps], t0;
        LCVRTCPContext *own = lcv_rtcp_context_alloc();
        uint64_t a0 = 0, a1 = 0;
        int n = 0, iters = 20000;

        if (!own) {
            fprintf(stderr, "out of memory\n");
            return 1;
        }
        t0 = now_ns();
        sink += full_round(pool, d[i].data, d[i].size, d[i].flags, iters, &n);
        iters = FFMIN(FFMAX(20e6 / ((now_ns() - t0) / iters), 20000), 2000000);

        for (int r = 0; r < reps; r++) {
            t0 = now_ns();
            if (r == reps - 1 && count)
                a0 = count();
            sink += full_round(pool, d[i].data, d[i].size, d[i].flags, iters, &n);
            if (r == reps - 1 && count)
                a1 = count();
            full[r] = (now_ns() - t0) / iters;

            t0 = now_ns();
            for (int k = 0; k < iters; k++) {
                LCVRTCPContext *ctx = lcv_rtcp_pool_get(pool);
                n = lcv_rtcp_parse(ctx, d[i].data, d[i].size, d[i].flags);
                sink += ctx->nb_packets;
                lcv_rtcp_context_release(&ctx);
            }
            only[r] = (now_ns() - t0) / iters;

            t0 = now_ns();
            for (int k = 0; k < iters; k++) {
                n = lcv_rtcp_parse(own, d[i].data, d[i].size, d[i].flags);
                sink += own->nb_packets;
            }
            nopool[r] = (now_ns() - t0) / iters;
        }
        qsort(full, reps, sizeof(double), cmp_double);
        qsort(only, reps, sizeof(double), cmp_double);
        lcv_rtcp_context_free(&own);
        qsort(nopool, reps, sizeof(double), cmp_double);
        if (n <= 0) {
            fprintf(stderr, "%s does not parse\n", d[i].name);
            return 1;
        }
        {
            char allocs[32] = "-";
            if (count)
                snprintf(allocs, sizeof(allocs), "%.3f", (double)(a1 - a0) / iters);
            printf("| %d. %s | %d | %d | %.1f | %.1f | %.1f | %s |\n", i + 1, d[i].name, d[i].size, n,
                   full[reps / 2], only[reps / 2], nopool[reps / 2], allocs);
        }
    }
    lcv_rtcp_pool_free(&pool);
    return 0;
}
