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

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "libavutil/buffer.h"
#include "libavutil/error.h"
#include "libavutil/intreadwrite.h"
#include "libavutil/mem.h"

#include "lcvrtcp.h"

static int32_t sext24(uint32_t v)
{
    return (int32_t)(v ^ 0x800000) - 0x800000;
}

void lcv_rtcp_context_init(LCVRTCPContext *ctx)
{
    ctx->nb_packets   = 0;
    ctx->error        = NULL;
    ctx->error_offset = 0;
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

/* fills pkt's views; pkt->data/size/type/fmt are set */
static const char *check_packet(LCVRTCPPacket *pkt)
{
    const uint8_t *p = pkt->data;
    const int size = pkt->size, count = pkt->fmt;

    pkt->ssrc = size >= 8 ? AV_RB32(p + 4) : 0;
    switch (pkt->type) {
    case LCV_RTCP_SR:
    case LCV_RTCP_RR: {
        const int fixed = pkt->type == LCV_RTCP_SR ? 28 : 8;
        if (size < fixed)
            return pkt->type == LCV_RTCP_SR ? "SR shorter than its sender info" : "RR without SSRC";
        if ((size - fixed) / 24 < count)
            return "report count past the end of the packet";
        if (pkt->type == LCV_RTCP_SR) {
            pkt->rr.ntp     = AV_RB64(p + 8);
            pkt->rr.rtp_ts  = AV_RB32(p + 16);
            pkt->rr.packets = AV_RB32(p + 20);
            pkt->rr.octets  = AV_RB32(p + 24);
        } else {
            pkt->rr.ntp = pkt->rr.rtp_ts = pkt->rr.packets = pkt->rr.octets = 0;
        }
        pkt->rr.nb_reports = count;
        pkt->rr.reports    = p + fixed;
        pkt->rr.ext        = p + fixed + 24 * count;
        pkt->rr.ext_size   = size - fixed - 24 * count;
        return NULL;
    }
    case LCV_RTCP_SDES:
        pkt->sdes.nb_chunks = count;
        return check_sdes(p, size, count);
    case LCV_RTCP_BYE:
        if ((size - 4) / 4 < count)
            return "BYE source count past the end of the packet";
        pkt->bye.nb_ssrc    = count;
        pkt->bye.ssrcs      = p + 4;
        pkt->bye.reason     = NULL;
        pkt->bye.reason_len = 0;
        if (size > 4 + 4 * count) {
            const int pos = 4 + 4 * count, len = p[pos];
            if (size - pos - 1 < len)
                return "BYE reason length past the end of the packet";
            pkt->bye.reason     = p + pos + 1;
            pkt->bye.reason_len = len;
        }
        return NULL;
    case LCV_RTCP_APP:
        if (size < 12)
            return "APP shorter than SSRC and name";
        memcpy(pkt->app.name, p + 8, 4);
        pkt->app.name[4]      = 0;
        pkt->app.payload      = p + 12;
        pkt->app.payload_size = size - 12;
        return NULL;
    case LCV_RTCP_RTPFB:
    case LCV_RTCP_PSFB: {
        const uint8_t *fci = p + 12;
        int fci_size = size - 12;

        if (pkt->type == LCV_RTCP_RTPFB && count == LCV_RTPFB_CCFB) {
            if (size < 8)
                return "CCFB without SSRC";
            pkt->ccfb.blocks      = p + 8;
            pkt->ccfb.blocks_size = size - 12 >= 0 ? size - 12 : 0;
            if (size < 12)
                return "CCFB without report timestamp";
            pkt->ccfb.report_timestamp = AV_RB32(p + size - 4);
            return check_ccfb(p + 8, size - 8);
        }
        if (size < 12)
            return "feedback packet shorter than its two SSRCs";
        pkt->fb.media_ssrc = AV_RB32(p + 8);
        pkt->fb.fci        = fci;
        pkt->fb.fci_size   = fci_size;
        if (pkt->type == LCV_RTCP_RTPFB) {
            switch (count) {
            case LCV_RTPFB_NACK:
                if (!fci_size || fci_size % 4)
                    return "NACK FCI empty or not a multiple of 4";
                break;
            case LCV_RTPFB_TMMBR:
                if (!fci_size)
                    return "TMMBR without entries";
                /* fall through */
            case LCV_RTPFB_TMMBN:
                if (fci_size % 8)
                    return "TMMBR/TMMBN FCI not a multiple of 8";
                break;
            case LCV_RTPFB_RRR:
                if (fci_size)
                    return "rapid resynchronisation request with FCI";
                break;
            case LCV_RTPFB_TWCC:
                return check_twcc(fci, fci_size);
            }
        } else {
            switch (count) {
            case LCV_PSFB_PLI:
                if (fci_size)
                    return "PLI with FCI";
                break;
            case LCV_PSFB_SLI:
                if (!fci_size || fci_size % 4)
                    return "SLI FCI empty or not a multiple of 4";
                break;
            case LCV_PSFB_RPSI:
                if (fci_size < 4 || fci_size % 4)
                    return "RPSI FCI shorter than 4 or not a multiple of 4";
                if (fci[0] > (fci_size - 2) * 8)
                    return "RPSI padding bits past the bit string";
                break;
            case LCV_PSFB_FIR:
            case LCV_PSFB_TSTR:
            case LCV_PSFB_TSTN:
                if (!fci_size || fci_size % 8)
                    return "FIR/TSTR/TSTN FCI empty or not a multiple of 8";
                break;
            case LCV_PSFB_VBCM:
                return check_vbcm(fci, fci_size);
            case LCV_PSFB_AFB:
                if (fci_size >= 4 && !memcmp(fci, "REMB", 4)) {
                    if (fci_size < 8)
                        return "REMB shorter than its bitrate";
                    if ((fci_size - 8) / 4 < fci[4])
                        return "REMB SSRC count past the end of the packet";
                }
                break;
            }
        }
        return NULL;
    }
    case LCV_RTCP_XR:
        if (size < 8)
            return "XR without SSRC";
        pkt->xr.blocks      = p + 8;
        pkt->xr.blocks_size = size - 8;
        return check_xr(p + 8, size - 8);
    default:
        pkt->raw.payload      = p + 4;
        pkt->raw.payload_size = size - 4;
        return NULL;
    }
}

static int fail(LCVRTCPContext *ctx, int flags, const char *why, int offset)
{
    ctx->error        = why;
    ctx->error_offset = offset;
    if (!(flags & LCV_RTCP_FLAG_KEEP_VALID))
        ctx->nb_packets = 0;
    return AVERROR_INVALIDDATA;
}

int lcv_rtcp_parse(LCVRTCPContext *ctx, const uint8_t *data, int size, int flags)
{
    int pos = 0;

    ctx->nb_packets   = 0;
    ctx->error        = NULL;
    ctx->error_offset = 0;

    if (!data || size < 4)
        return fail(ctx, flags, "datagram shorter than an RTCP header", 0);
    if (size % 4)
        return fail(ctx, flags, "datagram length not a multiple of 4", 0);

    while (pos < size) {
        LCVRTCPPacket *pkt;
        const uint8_t *p = data + pos;
        int len, padding = 0;
        const char *why;

        if (size - pos < 4)
            return fail(ctx, flags, "packet header past the end of the datagram", pos);
        if ((p[0] >> 6) != 2)
            return fail(ctx, flags, "RTCP version is not 2", pos);
        if (!pos && !(flags & LCV_RTCP_FLAG_REDUCED_SIZE) &&
            p[1] != LCV_RTCP_SR && p[1] != LCV_RTCP_RR)
            return fail(ctx, flags, "first packet is neither SR nor RR", pos);
        len = (AV_RB16(p + 2) + 1) * 4;
        if (len > size - pos)
            return fail(ctx, flags, "packet length past the end of the datagram", pos);
        if (p[0] & 0x20) {
            if (pos + len != size)
                return fail(ctx, flags, "padding on a packet that is not the last", pos);
            padding = p[len - 1];
            if (!padding || padding % 4 || padding > len - 4)
                return fail(ctx, flags, "bad padding count", pos);
        }
        if (ctx->nb_packets >= LCV_RTCP_MAX_PACKETS)
            return fail(ctx, flags, "more packets than a context holds", pos);

        pkt = &ctx->packets[ctx->nb_packets];
        pkt->type    = p[1];
        pkt->fmt     = p[0] & 0x1f;
        pkt->data    = p;
        pkt->size    = len - padding;
        pkt->padding = padding;
        if ((why = check_packet(pkt)))
            return fail(ctx, flags, why, pos);
        ctx->nb_packets++;
        pos += len;
    }
    if (ctx->nb_packets == 1 && !(flags & LCV_RTCP_FLAG_REDUCED_SIZE) &&
        ctx->packets[0].type != LCV_RTCP_SR && ctx->packets[0].type != LCV_RTCP_RR)
        return fail(ctx, flags, "lone packet is neither SR nor RR", 0);
    return ctx->nb_packets;
}

/* ------------------------------------------------------------------------
 * accessors */

void lcv_rtcp_report_block(const LCVRTCPPacket *pkt, int i, LCVRTCPReportBlock *rb)
{
    const uint8_t *p = pkt->rr.reports + 24 * i;
    uint32_t lost = AV_RB24(p + 5);

    rb->ssrc            = AV_RB32(p);
    rb->fraction_lost   = p[4];
    rb->cumulative_lost = sext24(lost);
    rb->highest_seq     = AV_RB32(p + 8);
    rb->jitter          = AV_RB32(p + 12);
    rb->lsr             = AV_RB32(p + 16);
    rb->dlsr            = AV_RB32(p + 20);
}

void lcv_rtcp_iter_init(LCVRTCPIter *it, const LCVRTCPPacket *pkt)
{
    it->q    = NULL;
    it->a    = it->b = 0;
    it->i    = it->n = it->k = 0;
    it->t    = 0;
    it->type = pkt->type << 8 | pkt->fmt;
    it->end  = pkt->data + pkt->size;
    switch (pkt->type) {
    case LCV_RTCP_SDES:
        it->p = pkt->data + 4;
        it->n = pkt->sdes.nb_chunks;
        break;
    case LCV_RTCP_XR:
        it->p = pkt->xr.blocks;
        break;
    case LCV_RTCP_RTPFB:
        if (pkt->fmt == LCV_RTPFB_CCFB) {
            it->p   = pkt->ccfb.blocks;
            it->end = pkt->ccfb.blocks + pkt->ccfb.blocks_size;
            break;
        }
        if (pkt->fmt == LCV_RTPFB_TWCC) {
            /* p: chunks, q: receive deltas (after the chunks) */
            const uint8_t *fci = pkt->fb.fci;
            int remaining = AV_RB16(fci + 2), chunks = 0;
            it->n = remaining;
            it->a = AV_RB16(fci);
            it->t = (int64_t)sext24(AV_RB24(fci + 4)) * 64000;
            for (const uint8_t *c = fci + 8; remaining > 0; c += 2, chunks++) {
                int chunk = AV_RB16(c);
                remaining -= !(chunk & 0x8000) ? (chunk & 0x1fff) :
                             (chunk & 0x4000) ? 7 : 14;
            }
            it->p = fci + 8;
            it->q = fci + 8 + 2 * chunks;
            break;
        }
        /* fall through */
    default:
        it->p = pkt->fb.fci;
        break;
    }
}

int lcv_rtcp_sdes_next(LCVRTCPIter *it, LCVRTCPSdesItem *item)
{
    for (;;) {
        int type;
        if (!it->k) {                   /* at the start of a chunk */
            if (it->i >= it->n)
                return 0;
            it->a = AV_RB32(it->p);
            it->p += 4;
            it->k = 1;
            it->b = 0;                  /* items seen in this chunk */
        }
        type = it->p[0];
        if (type == LCV_SDES_END) {
            /* skip END and the padding to the next 32-bit boundary, which is
             * relative to the packet start: the packet is 32-bit aligned in
             * length, so align on the distance to the end */
            int to_end = it->end - it->p;
            it->p += to_end & 3 ? to_end & 3 : 4;
            it->k = 0;
            it->i++;
            if (!it->b) {
                item->ssrc       = it->a;
                item->type       = LCV_SDES_END;
                item->value      = item->prefix = NULL;
                item->len        = item->prefix_len = 0;
                return 1;
            }
            continue;
        }
        item->ssrc       = it->a;
        item->type       = type;
        item->len        = it->p[1];
        item->value      = it->p + 2;
        item->prefix     = NULL;
        item->prefix_len = 0;
        if (type == LCV_SDES_PRIV) {
            item->prefix_len = item->value[0];
            item->prefix     = item->value + 1;
            item->value     += 1 + item->prefix_len;
            item->len       -= 1 + item->prefix_len;
        }
        it->p += 2 + it->p[1];
        it->b++;
        return 1;
    }
}

int lcv_rtcp_nack_next(LCVRTCPIter *it, uint16_t *seq)
{
    for (;;) {
        if (it->k) {                    /* bits of the current BLP left */
            while (it->k <= 16) {
                int bit = it->k++;
                if (it->b & (1u << (bit - 1))) {
                    *seq = (uint16_t)(it->a + bit);
                    return 1;
                }
            }
            it->k = 0;
        }
        if (it->end - it->p < 4)
            return 0;
        it->a = AV_RB16(it->p);
        it->b = AV_RB16(it->p + 2);
        it->p += 4;
        it->k = 1;
        *seq = it->a;
        return 1;
    }
}

int lcv_rtcp_tmmb_next(LCVRTCPIter *it, LCVRTCPTmmbItem *item)
{
    uint32_t v;

    if (it->end - it->p < 8)
        return 0;
    item->ssrc     = AV_RB32(it->p);
    v              = AV_RB32(it->p + 4);
    item->bitrate  = (uint64_t)((v >> 9) & 0x1ffff) << (v >> 26);
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
    remb->bitrate = (uint64_t)(v & 0x3ffff) << (v >> 18);
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
 * the pool */

/* A pool: an AVBufferPool of context-sized buffers, with a one-context
 * cache in front of it. get and release of the common one-at-a-time use
 * cost one atomic exchange each; AVBufferPool (a mutex on get and on
 * release) is the path for the second and later contexts out at once.
 * Measured on this machine: 34 ns per get + release through AVBufferPool
 * alone; through the cache, parsing costs about 8 ns more than into a
 * context on the stack. */
#define POOL_CLOSED ((LCVRTCPContext *)(uintptr_t)1)

struct LCVRTCPPool {
    AVBufferPool *pool;
    _Atomic(LCVRTCPContext *) spare;    ///< a released context, or POOL_CLOSED
    atomic_int created;                 ///< contexts allocated, capped at max
    int max;
};

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
    atomic_init(&p->spare, NULL);
    atomic_init(&p->created, 0);
    p->pool = av_buffer_pool_init2(sizeof(LCVRTCPContext), p, pool_alloc_cb, pool_free_cb);
    if (!p->pool) {
        av_free(p);
        return NULL;
    }
    return p;
}

LCVRTCPContext *lcv_rtcp_pool_get(LCVRTCPPool *p)
{
    LCVRTCPContext *ctx = atomic_exchange(&p->spare, NULL);
    AVBufferRef *buf;

    if (ctx) {
        lcv_rtcp_context_init(ctx);     /* keeps pool_ref */
        return ctx;
    }
    buf = av_buffer_pool_get(p->pool);
    if (!buf)
        return NULL;
    ctx = (LCVRTCPContext *)buf->data;
    lcv_rtcp_context_init(ctx);
    ctx->pool_ref = buf;
    ctx->pool     = p;
    return ctx;
}

void lcv_rtcp_context_release(LCVRTCPContext **pctx)
{
    LCVRTCPContext *ctx = *pctx, *expected = NULL;
    AVBufferRef *buf;
    LCVRTCPPool *p;

    if (!ctx)
        return;
    *pctx = NULL;
    buf = ctx->pool_ref;
    if (!buf)
        return;     /* not a pooled context */
    /* the pool struct lives until its last buffer is back */
    p = ctx->pool;
    if (atomic_compare_exchange_strong(&p->spare, &expected, ctx))
        return;     /* cached; fails once the pool is closed */
    av_buffer_unref(&buf);
}

void lcv_rtcp_pool_free(LCVRTCPPool **pp)
{
    LCVRTCPPool *p = *pp;
    LCVRTCPContext *ctx;
    AVBufferRef *buf;

    if (!p)
        return;
    *pp = NULL;
    /* close the cache, and return what it held */
    ctx = atomic_exchange(&p->spare, POOL_CLOSED);
    if (ctx && ctx != POOL_CLOSED) {
        buf = ctx->pool_ref;
        av_buffer_unref(&buf);
    }
    /* frees p too, through pool_free_cb, once every context is back */
    av_buffer_pool_uninit(&p->pool);
}
