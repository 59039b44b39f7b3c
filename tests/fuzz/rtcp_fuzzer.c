/*
 * libFuzzer harness for lcv_rtcp: every input is parsed in strict mode and
 * in reduced-size keep-valid mode; every accessor and iterator walks what
 * was accepted; and what was accepted is rebuilt with the writers and must
 * parse again into the same fields (fields(): every value a reader sees,
 * in order). ASan and UBSan catch any read outside the input.
 *
 * It reuses the unit test's walk(), rebuild() and fields() (the test's
 * main() is renamed away).
 */
#define main lcvrtcp_test_main
#include "libavformat/tests/lcvrtcp.c"
#undef main

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const int modes[] = {
        0, LCV_RTCP_FLAG_REDUCED_SIZE | LCV_RTCP_FLAG_KEEP_VALID,
    };
    /* views over packet arrays of the harness's own (as the unit test's) */
    static LCVRTCPPacket ctx_pk[LCV_RTCP_MAX_PACKETS], again_pk[LCV_RTCP_MAX_PACKETS];
    static LCVRTCPContext ctx = { .packets = ctx_pk }, again = { .packets = again_pk };
    static uint8_t out[65536 + 64];
    volatile uint64_t sink = 0;
    uint8_t *copy;

    if (size > 65535)
        return 0;
    /* an exact-size heap copy, so that ASan sees any overread */
    copy = malloc(size ? size : 1);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    for (int m = 0; m < 2; m++) {
        int n = lcv_rtcp_parse(&ctx, copy, size, modes[m]);
        int rebuilt;
        Fields a, b;

        sink += walk(&ctx);
        if (n < 0 && !ctx.nb_packets)
            continue;
        rebuilt = rebuild(&ctx, out, sizeof(out));
        if (rebuilt < 0)
            abort();    /* whatever parses can be written again */
        if (lcv_rtcp_parse(&again, out, rebuilt, modes[m] | LCV_RTCP_FLAG_REDUCED_SIZE) !=
            ctx.nb_packets)
            abort();    /* and parses again */
        a = fields(&ctx);
        b = fields(&again);
        if (a.hash != b.hash || a.count != b.count)
            abort();    /* into the same fields */
        sink += walk(&again);
    }
    free(copy);
    return 0;
}
