/*
 * This file is part of FFmpeg.
 *
 * FFmpeg is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Lesser General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 *
 * FFmpeg is distributed in the hope that it will be useful,
 * but WITHOUT ANY WARRANTY; without even the implied warranty of
 * MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
 * Lesser General Public License for more details.
 *
 * You should have received a copy of the GNU Lesser General Public
 * License along with FFmpeg; if not, write to the Free Software
 * Foundation, Inc., 51 Franklin Street, Fifth Floor, Boston, MA 02110-1301 USA
 */

/**
 * @file
 * RTCP parsing: one validation pass over the compound datagram, then
 * zero-copy views and iterators that only read validated bytes.
 */

#include <assert.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "libavutil/attributes.h"
#include "libavutil/buffer.h"
#include "libavutil/common.h"
#include "libavutil/error.h"
#include "libavutil/intreadwrite.h"
#include "libavutil/mem.h"

#include "lcvrtcp.h"

static int32_t sext24(uint32_t v)
{
    return (int32_t)(v ^ 0x800000) - 0x800000;
}

/* the exported function is not inlined in a -fPIC build (it could be
 * interposed); the pool's get uses this one */
static av_always_inline void context_reset(LCVRTCPContext *ctx)
{
    ctx->nb_packets   = 0;
    ctx->error        = NULL;
    ctx->error_offset = 0;
}

/* a context and its packets in one allocation */
#define CONTEXT_SIZE (sizeof(LCVRTCPContext) + LCV_RTCP_MAX_PACKETS * sizeof(LCVRTCPPacket))

/* the packets follow the context, aligned */
static_assert(sizeof(LCVRTCPContext) % _Alignof(LCVRTCPPacket) == 0, "packets misaligned");

static void context_place(LCVRTCPContext *ctx)
{
    memset(ctx, 0, sizeof(*ctx));
    ctx->packets = (LCVRTCPPacket *)(ctx + 1);
}

LCVRTCPContext *lcv_rtcp_context_alloc(void)
{
    LCVRTCPContext *ctx = av_malloc(CONTEXT_SIZE);

    if (ctx)
        context_place(ctx);
    return ctx;
}

void lcv_rtcp_context_free(LCVRTCPContext **pctx)
{
    if (*pctx && (*pctx)->pool_ref) {
        lcv_rtcp_context_release(pctx);
        return;
    }
    av_freep(pctx);
}

/* ------------------------------------------------------------------------
 * validation of each packet type; p and size describe the packet without
 * its padding, header included. Each returns NULL or the reason. */

static const char *check_sdes(const uint8_t *p, int size, int nb_chunks)
{
    int pos = 4;

    for (int c = 0; c < nb_chunks; c++) {
        if (size - pos < 4)
            return "SDES chunk SSRC past the end of the packet";
        pos += 4;
        for (;;) {
            int type, len;
            if (pos >= size)
                return "SDES chunk without END item";
            type = p[pos];
            if (type == LCV_SDES_END) {
                pos = (pos + 4) & ~3;   /* END and the padding to 32 bits */
                if (pos > size)
                    return "SDES chunk padding past the end of the packet";
                break;
            }
            if (size - pos < 2)
                return "SDES item header past the end of the packet";
            len = p[pos + 1];
            if (size - pos - 2 < len)
                return "SDES item length past the end of the packet";
            if (type == LCV_SDES_PRIV && (len < 1 || p[pos + 2] > len - 1))
                return "SDES PRIV prefix length past the item";
            pos += 2 + len;
        }
    }
    if (pos != size)
        return "SDES packet longer than its chunks";
    return NULL;
}

static const char *check_twcc(const uint8_t *fci, int size)
{
    int status_count, pos = 8, delta_bytes = 0, seen = 0;

    if (size < 8)
        return "TWCC feedback shorter than its header";
    status_count = AV_RB16(fci + 2);
    while (seen < status_count) {
        int chunk, n;
        if (size - pos < 2)
            return "TWCC packet chunks past the end of the packet";
        chunk = AV_RB16(fci + pos);
        pos += 2;
        if (!(chunk & 0x8000)) {            /* run length */
            int status = (chunk >> 13) & 3;
            n = FFMIN(chunk & 0x1fff, status_count - seen);
            if (!(chunk & 0x1fff))
                return "TWCC run length chunk of length 0";
            if (status == 3)
                return "TWCC reserved status";
            delta_bytes += n * status;      /* 0, 1 or 2 bytes per packet */
        } else if (!(chunk & 0x4000)) {     /* 14 one-bit symbols */
            n = FFMIN(14, status_count - seen);
            for (int i = 0; i < n; i++)
                delta_bytes += (chunk >> (13 - i)) & 1;
        } else {                            /* 7 two-bit symbols */
            n = FFMIN(7, status_count - seen);
            for (int i = 0; i < n; i++) {
                int status = (chunk >> (12 - 2 * i)) & 3;
                if (status == 3)
                    return "TWCC reserved status";
                delta_bytes += status;
            }
        }
        seen += n;
        if (delta_bytes > size)
            return "TWCC receive deltas past the end of the packet";
    }
    if (size - pos < delta_bytes)
        return "TWCC receive deltas past the end of the packet";
    if (size - pos - delta_bytes > 3)
        return "TWCC packet longer than its chunks and deltas";
    return NULL;
}

static const char *check_ccfb(const uint8_t *p, int size)
{
    int pos = 0;

    /* report blocks, then the 4-byte report timestamp */
    if (size < 4)
        return "CCFB without report timestamp";
    size -= 4;
    while (pos < size) {
        int num;
        if (size - pos < 8)
            return "CCFB report block header past the end of the packet";
        num = AV_RB16(p + pos + 6);
        if (num > 16384)
            return "CCFB num_reports above 16384";
        pos += 8;
        if ((size - pos) / 4 < (num + 1) / 2)
            return "CCFB metric blocks past the end of the packet";
        pos += ((num + 1) / 2) * 4;
    }
    return NULL;
}

static const char *check_vbcm(const uint8_t *p, int size)
{
    int pos = 0;

    /* RFC 5104 4.3.4.2: one or more entries, as FIR, TSTR and TSTN */
    if (!size)
        return "VBCM FCI empty";

    while (pos < size) {
        int len;
        if (size - pos < 8)
            return "VBCM entry past the end of the packet";
        len = AV_RB16(p + pos + 6);
        pos += 8;
        if (size - pos < ((len + 3) & ~3))
            return "VBCM bit string past the end of the packet";
        pos += (len + 3) & ~3;
    }
    return NULL;
}

static const char *check_xr(const uint8_t *p, int size)
{
    int pos = 0;

    while (pos < size) {
        int type, len;
        if (size - pos < 4)
            return "XR block header past the end of the packet";
        type = p[pos];
        len  = AV_RB16(p + pos + 2) * 4;
        pos += 4;
        if (size - pos < len)
            return "XR block length past the end of the packet";
        switch (type) {
        case LCV_XR_LRLE:
        case LCV_XR_DRLE:
        case LCV_XR_PRT:
            if (len < 8)
                return "XR range block shorter than its fixed part";
            if (type == LCV_XR_PRT) {
                /* one receipt time per reported sequence number, 16-bit
                 * wraparound included */
                int thinning = p[pos - 3] & 15;
                unsigned span = (uint16_t)(AV_RB16(p + pos + 6) - AV_RB16(p + pos + 4));
                unsigned count = (span + (1u << thinning) - 1) >> thinning;
                if ((len - 8) / 4 < count)
                    return "XR PRT receipt times past the block";
            }
            break;
        case LCV_XR_RRTR:
            if (len != 8)
                return "XR RRTR block length is not 2";
            break;
        case LCV_XR_DLRR:
            if (len % 12)
                return "XR DLRR block length not a multiple of 3";
            break;
        case LCV_XR_STATS:
            if (len != 36)
                return "XR statistics summary block length is not 9";
            break;
        case LCV_XR_VOIP:
            if (len != 32)
                return "XR VoIP metrics block length is not 8";
            break;
        }
        pos += len;
    }
    return NULL;
}

/* the FCI checks of RTPFB and PSFB; kind is PT << 5 | FMT */
static const char *check_fb(const uint8_t *fci, int fci_size, int kind)
{
    switch (kind) {
    case LCV_RTCP_RTPFB << 5 | LCV_RTPFB_NACK:
        if (!fci_size || fci_size % 4)
            return "NACK FCI empty or not a multiple of 4";
        break;
    case LCV_RTCP_RTPFB << 5 | LCV_RTPFB_TMMBR:
        if (!fci_size)
            return "TMMBR without entries";
        /* fall through */
    case LCV_RTCP_RTPFB << 5 | LCV_RTPFB_TMMBN:
        if (fci_size % 8)
            return "TMMBR/TMMBN FCI not a multiple of 8";
        break;
    case LCV_RTCP_RTPFB << 5 | LCV_RTPFB_RRR:
        if (fci_size)
            return "rapid resynchronisation request with FCI";
        break;
    case LCV_RTCP_RTPFB << 5 | LCV_RTPFB_TWCC:
        return check_twcc(fci, fci_size);
    case LCV_RTCP_PSFB << 5 | LCV_PSFB_PLI:
        if (fci_size)
            return "PLI with FCI";
        break;
    case LCV_RTCP_PSFB << 5 | LCV_PSFB_SLI:
        if (!fci_size || fci_size % 4)
            return "SLI FCI empty or not a multiple of 4";
        break;
    case LCV_RTCP_PSFB << 5 | LCV_PSFB_RPSI:
        if (fci_size < 4 || fci_size % 4)
            return "RPSI FCI shorter than 4 or not a multiple of 4";
        if (fci[0] > (fci_size - 2) * 8)
            return "RPSI padding bits past the bit string";
        break;
    case LCV_RTCP_PSFB << 5 | LCV_PSFB_FIR:
    case LCV_RTCP_PSFB << 5 | LCV_PSFB_TSTR:
    case LCV_RTCP_PSFB << 5 | LCV_PSFB_TSTN:
        if (!fci_size || fci_size % 8)
            return "FIR/TSTR/TSTN FCI empty or not a multiple of 8";
        break;
    case LCV_RTCP_PSFB << 5 | LCV_PSFB_VBCM:
        return check_vbcm(fci, fci_size);
    case LCV_RTCP_PSFB << 5 | LCV_PSFB_AFB:
        if (fci_size >= 4 && !memcmp(fci, "REMB", 4)) {
            if (fci_size < 8)
                return "REMB shorter than its bitrate";
            if ((fci_size - 8) / 4 < fci[4])
                return "REMB SSRC count past the end of the packet";
        }
        break;
    }
    return NULL;
}

static const char *check_ccfb_packet(LCVRTCPPacket *pkt, const uint8_t *p, int size)
{
    if (size < 8)
        return "CCFB without SSRC";
    pkt->ccfb.blocks      = p + 8;
    pkt->ccfb.blocks_size = size - 12 >= 0 ? size - 12 : 0;
    if (size < 12)
        return "CCFB without report timestamp";
    pkt->ccfb.report_timestamp = AV_RB32(p + size - 4);
    return check_ccfb(p + 8, size - 8);
}

/* Fills pkt's views of the packet p of size bytes (header included,
 * padding excluded), PT type and 5-bit count/FMT field count. Inlined into
 * the parse loop: the header fields stay in registers. */
static av_always_inline const char *check_packet(LCVRTCPPacket *pkt, const uint8_t *p,
                                                  int size, int type, int count)
{
    /* if-chains rather than a switch: a jump table costs a dependent load
     * and an indirect branch per packet, measurable at ~3 ns per packet */
    pkt->ssrc = size >= 8 ? AV_RB32(p + 4) : 0;
    if (type == LCV_RTCP_SR || type == LCV_RTCP_RR) {
        const int fixed = type == LCV_RTCP_SR ? 28 : 8;
        if (size < fixed)
            return type == LCV_RTCP_SR ? "SR shorter than its sender info" : "RR without SSRC";
        if ((size - fixed) / 24 < count)
            return "report count past the end of the packet";
        if (type == LCV_RTCP_SR) {
            pkt->rr.ntp     = AV_RB64(p + 8);
            pkt->rr.rtp_ts  = AV_RB32(p + 16);
            pkt->rr.packets = AV_RB32(p + 20);
            pkt->rr.octets  = AV_RB32(p + 24);
        } else {
            pkt->rr.ntp = 0;
            pkt->rr.rtp_ts = pkt->rr.packets = pkt->rr.octets = 0;
        }
        pkt->rr.nb_reports = count;
        pkt->rr.reports    = p + fixed;
        pkt->rr.ext        = p + fixed + 24 * count;
        pkt->rr.ext_size   = size - fixed - 24 * count;
        return NULL;
    }
    if (type == LCV_RTCP_RTPFB || type == LCV_RTCP_PSFB) {
        if (type == LCV_RTCP_RTPFB && count == LCV_RTPFB_CCFB)
            return check_ccfb_packet(pkt, p, size);
        if (size < 12)
            return "feedback packet shorter than its two SSRCs";
        pkt->fb.media_ssrc = AV_RB32(p + 8);
        pkt->fb.fci        = p + 12;
        pkt->fb.fci_size   = size - 12;
        /* PLI and rapid resynchronisation: no FCI */
        if (size == 12 && (type == LCV_RTCP_PSFB ? count == LCV_PSFB_PLI : count == LCV_RTPFB_RRR))
            return NULL;
        return check_fb(p + 12, size - 12, type << 5 | count);
    }
    if (type == LCV_RTCP_SDES) {
        pkt->sdes.nb_chunks = count;
        return check_sdes(p, size, count);
    }
    if (type == LCV_RTCP_BYE) {
        const int pos = 4 + 4 * count;
        if (size < pos)
            return "BYE source count past the end of the packet";
        pkt->bye.nb_ssrc    = count;
        pkt->bye.ssrcs      = p + 4;
        pkt->bye.reason     = NULL;
        pkt->bye.reason_len = 0;
        if (size > pos) {
            const int len = p[pos];
            if (size - pos - 1 < len)
                return "BYE reason length past the end of the packet";
            /* RFC 3550 6.6: only null padding to the next 32-bit boundary */
            if (size != ((pos + 1 + len + 3) & ~3))
                return "BYE longer than its reason and padding";
            pkt->bye.reason     = p + pos + 1;
            pkt->bye.reason_len = len;
        }
        return NULL;
    }
    if (type == LCV_RTCP_APP) {
        if (size < 12)
            return "APP shorter than SSRC and name";
        AV_COPY32U(pkt->app.name, p + 8);
        pkt->app.name[4]      = 0;
        pkt->app.payload      = p + 12;
        pkt->app.payload_size = size - 12;
        return NULL;
    }
    if (type == LCV_RTCP_XR) {
        if (size < 8)
            return "XR without SSRC";
        pkt->xr.blocks      = p + 8;
        pkt->xr.blocks_size = size - 8;
        return check_xr(p + 8, size - 8);
    }
    pkt->raw.payload      = p + 4;
    pkt->raw.payload_size = size - 4;
    return NULL;
}

static int fail(LCVRTCPContext *ctx, int nb_valid, int flags, const char *why, int offset)
{
    ctx->nb_packets   = flags & LCV_RTCP_FLAG_KEEP_VALID ? nb_valid : 0;
    ctx->error        = why;
    ctx->error_offset = offset;
    return AVERROR_INVALIDDATA;
}

int lcv_rtcp_parse(LCVRTCPContext *ctx, const uint8_t *data, int size, int flags)
{
    const uint8_t *p = data, *end;
    int n = 0;

    ctx->error        = NULL;
    ctx->error_offset = 0;

    if (!data || size < 4)
        return fail(ctx, 0, flags, "datagram shorter than an RTCP header", 0);
    if (size % 4)
        return fail(ctx, 0, flags, "datagram length not a multiple of 4", 0);
    /* SR is 200, RR 201 */
    if (!(flags & LCV_RTCP_FLAG_REDUCED_SIZE) && (data[1] & 0xfe) != LCV_RTCP_SR &&
        (data[0] >> 6) == 2)
        return fail(ctx, 0, flags, "first packet is neither SR nor RR", 0);

    /* size is a multiple of 4, so every header is inside the datagram */
    end = data + size;
    do {
        const uint32_t h = AV_RB32(p);
        const int type = h >> 16 & 0xff, fmt = h >> 24 & 0x1f;
        int len = ((h & 0xffff) + 1) * 4, padding = 0;
        LCVRTCPPacket *pkt;
        const char *why;

        if (h >> 30 != 2)
            return fail(ctx, n, flags, "RTCP version is not 2", p - data);
        if (len > end - p)
            return fail(ctx, n, flags, "packet length past the end of the datagram", p - data);
        if (h & 0x20000000) {
            if (p + len != end)
                return fail(ctx, n, flags, "padding on a packet that is not the last", p - data);
            /* RFC 3550 counts padding in 32-bit words; libwebrtc pads its
             * transport-cc feedback (a byte-granular payload) to the next
             * word with a count of 1 to 3, which is taken as it is */
            padding = p[len - 1];
            if (!padding || padding > len - 4 ||
                (padding % 4 && (type != LCV_RTCP_RTPFB || fmt != LCV_RTPFB_TWCC)))
                return fail(ctx, n, flags, "bad padding count", p - data);
        }
        if (n >= LCV_RTCP_MAX_PACKETS)
            return fail(ctx, n, flags, "more packets than a context holds", p - data);

        pkt = &ctx->packets[n];
        pkt->type    = type;
        pkt->fmt     = fmt;
        pkt->data    = p;
        pkt->size    = len - padding;
        pkt->padding = padding;
        if ((why = check_packet(pkt, p, len - padding, type, fmt)))
            return fail(ctx, n, flags, why, p - data);
        n++;
        p += len;
    } while (p < end);
    ctx->nb_packets = n;
    return n;
}

/* ------------------------------------------------------------------------
 * accessors */

/* mantissa * 2^exp (TMMBR/TMMBN, REMB), saturated at UINT64_MAX: exponents
 * reach 63, and a peer must not be able to wrap the bitrate to 0 */
static uint64_t mantissa_exp(uint32_t mantissa, unsigned exp)
{
    if (!mantissa)
        return 0;
    if (av_log2(mantissa) + exp > 63)
        return UINT64_MAX;
    return (uint64_t)mantissa << exp;
}

int lcv_rtcp_tmmb_next(LCVRTCPIter *it, LCVRTCPTmmbItem *item)
{
    uint32_t v;

    if (it->end - it->p < 8)
        return 0;
    item->ssrc     = AV_RB32(it->p);
    v              = AV_RB32(it->p + 4);
    item->bitrate  = mantissa_exp((v >> 9) & 0x1ffff, v >> 26);
    item->overhead = v & 0x1ff;
    it->p += 8;
    return 1;
}

int lcv_rtcp_fir_next(LCVRTCPIter *it, LCVRTCPFirItem *item)
{
    if (it->end - it->p < 8)
        return 0;
    item->ssrc  = AV_RB32(it->p);
    item->seq   = it->p[4];
    item->index = it->p[7] & 0x1f;
    it->p += 8;
    return 1;
}

int lcv_rtcp_sli_next(LCVRTCPIter *it, LCVRTCPSliItem *item)
{
    uint32_t v;

    if (it->end - it->p < 4)
        return 0;
    v = AV_RB32(it->p);
    item->first      = v >> 19;
    item->number     = (v >> 6) & 0x1fff;
    item->picture_id = v & 0x3f;
    it->p += 4;
    return 1;
}

void lcv_rtcp_rpsi(const LCVRTCPPacket *pkt, LCVRTCPRpsi *rpsi)
{
    const uint8_t *fci = pkt->fb.fci;

    rpsi->payload_type = fci[1] & 0x7f;
    rpsi->bits         = fci + 2;
    rpsi->nb_bits      = (pkt->fb.fci_size - 2) * 8 - fci[0];
}

int lcv_rtcp_vbcm_next(LCVRTCPIter *it, LCVRTCPVbcmItem *item)
{
    if (it->end - it->p < 8)
        return 0;
    item->ssrc         = AV_RB32(it->p);
    item->seq          = it->p[4];
    item->payload_type = it->p[5] & 0x7f;
    item->len          = AV_RB16(it->p + 6);
    item->data         = it->p + 8;
    it->p += 8 + ((item->len + 3) & ~3);
    return 1;
}

int lcv_rtcp_remb(const LCVRTCPPacket *pkt, LCVRTCPRemb *remb)
{
    const uint8_t *fci = pkt->fb.fci;
    uint32_t v;

    if (pkt->type != LCV_RTCP_PSFB || pkt->fmt != LCV_PSFB_AFB ||
        pkt->fb.fci_size < 8 || memcmp(fci, "REMB", 4))
        return 0;
    v = AV_RB24(fci + 5);
    remb->nb_ssrc = fci[4];
    remb->bitrate = mantissa_exp(v & 0x3ffff, v >> 18);
    remb->ssrcs   = fci + 8;
    return 1;
}

void lcv_rtcp_twcc(const LCVRTCPPacket *pkt, LCVRTCPTwcc *twcc)
{
    const uint8_t *fci = pkt->fb.fci;

    twcc->base_seq       = AV_RB16(fci);
    twcc->status_count   = AV_RB16(fci + 2);
    twcc->reference_time = sext24(AV_RB24(fci + 4));
    twcc->fb_count       = fci[7];
}

int lcv_rtcp_twcc_next(LCVRTCPIter *it, LCVRTCPTwccItem *item)
{
    int status;

    if (it->i >= it->n)
        return 0;
    if (!it->k) {                       /* load the next chunk */
        it->b = AV_RB16(it->p);
        it->p += 2;
        it->k = !(it->b & 0x8000) ? it->b & 0x1fff : (it->b & 0x4000) ? 7 : 14;
        it->k = FFMIN(it->k, it->n - it->i);
        it->b |= (uint32_t)it->k << 16; /* symbols in this chunk, for the index */
    }
    {
        const int chunk = it->b & 0xffff, total = it->b >> 16;
        const int idx = total - it->k;  /* symbol index within the chunk */
        if (!(chunk & 0x8000))
            status = (chunk >> 13) & 3;
        else if (!(chunk & 0x4000))
            status = (chunk >> (13 - idx)) & 1;
        else
            status = (chunk >> (12 - 2 * idx)) & 3;
    }
    it->k--;
    item->seq    = (uint16_t)(it->a + it->i);
    item->status = status;
    item->delta  = 0;
    if (status == 1) {
        item->delta = it->q[0];
        it->q += 1;
    } else if (status == 2) {
        item->delta = (int16_t)AV_RB16(it->q);
        it->q += 2;
    }
    it->t += (int64_t)item->delta * 250;
    item->arrival_us = status ? it->t : 0;
    it->i++;
    return 1;
}

int lcv_rtcp_ccfb_next(LCVRTCPIter *it, LCVRTCPCcfbItem *item)
{
    uint16_t m;

    while (it->i >= it->n) {            /* next report block */
        if (it->end - it->p < 8)
            return 0;
        it->a = AV_RB32(it->p);
        it->b = AV_RB16(it->p + 4);
        it->n = AV_RB16(it->p + 6);
        it->q = it->p + 8;
        it->p += 8 + ((it->n + 1) / 2) * 4;
        it->i = 0;
    }
    m = AV_RB16(it->q + 2 * it->i);
    item->ssrc     = it->a;
    item->seq      = (uint16_t)(it->b + it->i);
    item->received = m >> 15;
    item->ecn      = (m >> 13) & 3;
    item->ato      = m & 0x1fff;
    it->i++;
    return 1;
}

int lcv_rtcp_xr_next(LCVRTCPIter *it, LCVRTCPXrBlock *block)
{
    if (it->end - it->p < 4)
        return 0;
    block->type          = it->p[0];
    block->type_specific = it->p[1];
    block->size          = AV_RB16(it->p + 2) * 4;
    block->data          = it->p + 4;
    it->p += 4 + block->size;
    return 1;
}

void lcv_rtcp_xr_range(const LCVRTCPXrBlock *b, LCVRTCPXrRange *r)
{
    r->ssrc      = AV_RB32(b->data);
    r->begin_seq = AV_RB16(b->data + 4);
    r->end_seq   = AV_RB16(b->data + 6);
    r->thinning  = b->type_specific & 15;
}

void lcv_rtcp_xr_dlrr(const LCVRTCPXrBlock *b, int i, LCVRTCPDlrrItem *item)
{
    const uint8_t *p = b->data + 12 * i;

    item->ssrc = AV_RB32(p);
    item->lrr  = AV_RB32(p + 4);
    item->dlrr = AV_RB32(p + 8);
}

void lcv_rtcp_xr_stats(const LCVRTCPXrBlock *b, LCVRTCPXrStats *s)
{
    const uint8_t *p = b->data;

    s->ssrc        = AV_RB32(p);
    s->begin_seq   = AV_RB16(p + 4);
    s->end_seq     = AV_RB16(p + 6);
    s->flags       = b->type_specific;
    s->lost        = AV_RB32(p + 8);
    s->dup         = AV_RB32(p + 12);
    s->min_jitter  = AV_RB32(p + 16);
    s->max_jitter  = AV_RB32(p + 20);
    s->mean_jitter = AV_RB32(p + 24);
    s->dev_jitter  = AV_RB32(p + 28);
    s->min_ttl     = p[32];
    s->max_ttl     = p[33];
    s->mean_ttl    = p[34];
    s->dev_ttl     = p[35];
}

void lcv_rtcp_xr_voip(const LCVRTCPXrBlock *b, LCVRTCPXrVoip *v)
{
    const uint8_t *p = b->data;

    v->ssrc             = AV_RB32(p);
    v->loss_rate        = p[4];
    v->discard_rate     = p[5];
    v->burst_density    = p[6];
    v->gap_density      = p[7];
    v->burst_duration   = AV_RB16(p + 8);
    v->gap_duration     = AV_RB16(p + 10);
    v->round_trip_delay = AV_RB16(p + 12);
    v->end_system_delay = AV_RB16(p + 14);
    v->signal_level     = (int8_t)p[16];
    v->noise_level      = (int8_t)p[17];
    v->rerl             = p[18];
    v->gmin             = p[19];
    v->r_factor         = p[20];
    v->ext_r_factor     = p[21];
    v->mos_lq           = p[22];
    v->mos_cq           = p[23];
    v->rx_config        = p[24];
    v->jb_nominal       = AV_RB16(p + 26);
    v->jb_maximum       = AV_RB16(p + 28);
    v->jb_abs_max       = AV_RB16(p + 30);
}

/* ------------------------------------------------------------------------
 * the pool
 *
 * An AVBufferPool of context-sized buffers (allocation, the cap, and the
 * lifetime of the pool struct once it is freed), with two caches in front:
 *
 * - Per-thread slots. A thread that releases a context claims one of
 *   POOL_SLOTS slots (once, with a compare-and-swap on its owner field) and
 *   from then on parks its released context there; its gets take it back
 *   with a plain load and store (only the owner takes from its slot, and a
 *   get may not run concurrently with or after lcv_rtcp_pool_free()).
 *   A thread is named by the address of a thread-local variable: a thread
 *   that exits leaves its slot, and at most one context in it, to the next
 *   thread given the same thread-local block; lcv_rtcp_pool_free() frees
 *   what the slots hold.
 * - One shared spare, for threads without a slot: an exchange on get, a
 *   compare-and-swap on release.
 *
 * Releases may race with lcv_rtcp_pool_free(), which closes every slot
 * with an exchange: a release parks with an atomic exchange too, and sees
 * the close in the value it swaps out (it then takes its context back out
 * and returns it to AVBufferPool). Once its exchange has parked a context
 * in an open slot, a release touches nothing of the pool: the sweep may
 * return that context, and with it the pool's memory.
 *
 * Measured with tests/bench/rtcp_bench.c (make bench-rtcp, datagram 1, one
 * core), validation through the pool against a context outside it: the
 * shared spare alone (two locked instructions per get + release) cost about
 * 8 ns, the slot (one) 3.5-4 ns. A plain-store release paired with
 * membarrier() in lcv_rtcp_pool_free() saved about a nanosecond more, but
 * it has to read the pool's closed flag after parking, which
 * ThreadSanitizer showed can be after the pool was freed.
 */
#define POOL_CLOSED ((LCVRTCPContext *)(uintptr_t)1)
#define POOL_SLOTS  8

typedef struct PoolSlot {
    _Atomic(uintptr_t) owner;           ///< thread tag, 0 if unclaimed
    _Atomic(LCVRTCPContext *) ctx;      ///< parked context, NULL, or POOL_CLOSED
    /* a cache line per slot: threads do not share theirs */
    char pad[64 - sizeof(_Atomic(uintptr_t)) - sizeof(_Atomic(LCVRTCPContext *))];
} PoolSlot;

struct LCVRTCPPool {
    PoolSlot slot[POOL_SLOTS];
    AVBufferPool *pool;
    _Atomic(LCVRTCPContext *) spare;    ///< a released context, or POOL_CLOSED
    atomic_int created;                 ///< contexts allocated, capped at max
    int max;
};

static _Thread_local char thread_tag;

static av_always_inline uintptr_t thread_id(void)
{
    return (uintptr_t)&thread_tag;
}

/* the calling thread's slot, or NULL */
static av_always_inline PoolSlot *find_slot(LCVRTCPPool *p, uintptr_t id)
{
    for (int i = 0; i < POOL_SLOTS; i++)
        if (atomic_load_explicit(&p->slot[i].owner, memory_order_relaxed) == id)
            return &p->slot[i];
    return NULL;
}

static PoolSlot *claim_slot(LCVRTCPPool *p, uintptr_t id)
{
    for (int i = 0; i < POOL_SLOTS; i++) {
        uintptr_t expected = 0;
        if (atomic_compare_exchange_strong(&p->slot[i].owner, &expected, id))
            return &p->slot[i];
    }
    return NULL;
}

static void pool_free_cb(void *opaque)
{
    av_free(opaque);
}

static void context_free_cb(void *opaque, uint8_t *data)
{
    av_free(data);
}

/* the buffers carry the pool struct as their opaque, for release */
static AVBufferRef *pool_alloc_cb(void *opaque, size_t size)
{
    LCVRTCPPool *p = opaque;
    uint8_t *data;
    AVBufferRef *buf;

    /* a pool only allocates when all its contexts are out: capping the
     * allocations caps what a caller that never releases can hold */
    if (atomic_fetch_add(&p->created, 1) >= p->max) {
        atomic_fetch_sub(&p->created, 1);
        return NULL;
    }
    data = av_malloc(size);
    buf  = data ? av_buffer_create(data, size, context_free_cb, opaque, 0) : NULL;
    if (!buf) {
        av_free(data);
        atomic_fetch_sub(&p->created, 1);
    }
    return buf;
}

LCVRTCPPool *lcv_rtcp_pool_alloc(int max_contexts)
{
    LCVRTCPPool *p = av_mallocz(sizeof(*p));

    if (!p)
        return NULL;
    p->max = max_contexts > 0 ? max_contexts : 1024;
    for (int i = 0; i < POOL_SLOTS; i++) {
        atomic_init(&p->slot[i].owner, 0);
        atomic_init(&p->slot[i].ctx, NULL);
    }
    atomic_init(&p->spare, NULL);
    atomic_init(&p->created, 0);
    p->pool = av_buffer_pool_init2(CONTEXT_SIZE, p, pool_alloc_cb, pool_free_cb);
    if (!p->pool) {
        av_free(p);
        return NULL;
    }
    return p;
}

LCVRTCPContext *lcv_rtcp_pool_get(LCVRTCPPool *p)
{
    PoolSlot *s = find_slot(p, thread_id());
    LCVRTCPContext *ctx;
    AVBufferRef *buf;

    if (s && (ctx = atomic_load_explicit(&s->ctx, memory_order_acquire)) &&
        ctx != POOL_CLOSED) {
        /* only this thread takes from its slot */
        atomic_store_explicit(&s->ctx, NULL, memory_order_relaxed);
        context_reset(ctx);             /* keeps pool_ref */
        return ctx;
    }
    if ((ctx = atomic_exchange(&p->spare, NULL))) {
        if (ctx != POOL_CLOSED) {
            context_reset(ctx);
            return ctx;
        }
        atomic_store(&p->spare, POOL_CLOSED);
    }
    buf = av_buffer_pool_get(p->pool);
    if (!buf)
        return NULL;
    ctx = (LCVRTCPContext *)buf->data;
    context_place(ctx);
    ctx->pool_ref = buf;
    ctx->pool     = p;
    return ctx;
}

static void context_unref(LCVRTCPContext *ctx)
{
    AVBufferRef *buf = ctx->pool_ref;
    av_buffer_unref(&buf);
}

void lcv_rtcp_context_release(LCVRTCPContext **pctx)
{
    LCVRTCPContext *ctx = *pctx, *expected = NULL, *old;
    const uintptr_t id = thread_id();
    LCVRTCPPool *p;
    PoolSlot *s;

    if (!ctx)
        return;
    *pctx = NULL;
    if (!ctx->pool_ref)
        return;     /* not a pooled context */
    /* the pool struct lives until its last buffer is back */
    p = ctx->pool;
    if ((s = find_slot(p, id)) || (s = claim_slot(p, id))) {
        old = atomic_exchange(&s->ctx, ctx);
        if (!old)
            return;
        if (old == POOL_CLOSED)     /* close it again, return the context */
            old = atomic_exchange(&s->ctx, POOL_CLOSED);
        ctx = old;                  /* a slot holds one: the older goes on */
        if (ctx == POOL_CLOSED)
            return;
    }
    if (atomic_compare_exchange_strong(&p->spare, &expected, ctx))
        return;     /* cached; fails once the pool is closed */
    context_unref(ctx);
}

void lcv_rtcp_pool_free(LCVRTCPPool **pp)
{
    LCVRTCPPool *p = *pp;
    LCVRTCPContext *ctx;

    if (!p)
        return;
    *pp = NULL;
    /* close the caches, and return what they held */
    for (int i = 0; i < POOL_SLOTS; i++) {
        ctx = atomic_exchange(&p->slot[i].ctx, POOL_CLOSED);
        if (ctx && ctx != POOL_CLOSED)
            context_unref(ctx);
    }
    ctx = atomic_exchange(&p->spare, POOL_CLOSED);
    if (ctx && ctx != POOL_CLOSED)
        context_unref(ctx);
    /* frees p too, through pool_free_cb, once every context is back */
    av_buffer_pool_uninit(&p->pool);
}

unsigned lcv_rtcp_version(void)
{
    return LCV_RTCP_VERSION_INT;
}
