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
 * RTCP building: every packet is sized first, then written whole, so a
 * writer that runs out of space leaves no partial packet behind.
 */

#include <string.h>

#include "libavutil/common.h"
#include "libavutil/error.h"
#include "libavutil/intreadwrite.h"

#include "lcvrtcp.h"

void lcv_rtcp_writer_init(LCVRTCPWriter *w, uint8_t *buf, int size)
{
    w->buf  = buf;
    w->size = size;
    w->pos  = 0;
    w->last = -1;
}

/* Reserve a packet of 4 + body bytes (body a multiple of 4) and write its
 * header; returns where the body goes, or NULL. */
static uint8_t *begin(LCVRTCPWriter *w, int type, int fmt, int body)
{
    uint8_t *p;

    if (body < 0 || body % 4 || body > 4 * 65535 || fmt < 0 || fmt > 31 ||
        w->size - w->pos < 4 + body)
        return NULL;
    p = w->buf + w->pos;
    p[0] = 0x80 | fmt;
    p[1] = type;
    AV_WB16(p + 2, body / 4);
    w->last = w->pos;
    w->pos += 4 + body;
    return p + 4;
}

#define BEGIN(type, fmt, body)                                  \
    const int written = 4 + (body);                             \
    uint8_t *p;                                                 \
    if (!(p = begin(w, type, fmt, body)))                       \
        return AVERROR(ENOSPC)

int lcv_rtcp_writer_finish(LCVRTCPWriter *w, int align)
{
    int pad;

    if (align <= 0 || align % 4 || align > 252)
        return AVERROR(EINVAL);
    pad = (align - w->pos % align) % align;
    if (!pad)
        return w->pos;
    if (w->last < 0 || w->size - w->pos < pad)
        return AVERROR(ENOSPC);
    memset(w->buf + w->pos, 0, pad);
    w->buf[w->pos + pad - 1] = pad;
    w->buf[w->last] |= 0x20;
    w->pos += pad;
    AV_WB16(w->buf + w->last + 2, (w->pos - w->last) / 4 - 1);
    return w->pos;
}

static void write_report_blocks(uint8_t *p, const LCVRTCPReportBlock *rb, int nb)
{
    for (int i = 0; i < nb; i++, p += 24) {
        AV_WB32(p,      rb[i].ssrc);
        p[4] = rb[i].fraction_lost;
        AV_WB24(p + 5,  rb[i].cumulative_lost & 0xffffff);
        AV_WB32(p + 8,  rb[i].highest_seq);
        AV_WB32(p + 12, rb[i].jitter);
        AV_WB32(p + 16, rb[i].lsr);
        AV_WB32(p + 20, rb[i].dlsr);
    }
}

int lcv_rtcp_write_sr(LCVRTCPWriter *w, uint32_t ssrc, uint64_t ntp, uint32_t rtp_ts,
                      uint32_t packets, uint32_t octets,
                      const LCVRTCPReportBlock *rb, int nb_rb)
{
    if (nb_rb < 0 || nb_rb > 31)
        return AVERROR(EINVAL);
    {
        BEGIN(LCV_RTCP_SR, nb_rb, 24 + 24 * nb_rb);
        AV_WB32(p,      ssrc);
        AV_WB64(p + 4,  ntp);
        AV_WB32(p + 12, rtp_ts);
        AV_WB32(p + 16, packets);
        AV_WB32(p + 20, octets);
        write_report_blocks(p + 24, rb, nb_rb);
        return written;
    }
}

int lcv_rtcp_write_rr(LCVRTCPWriter *w, uint32_t ssrc,
                      const LCVRTCPReportBlock *rb, int nb_rb)
{
    if (nb_rb < 0 || nb_rb > 31)
        return AVERROR(EINVAL);
    {
        BEGIN(LCV_RTCP_RR, nb_rb, 4 + 24 * nb_rb);
        AV_WB32(p, ssrc);
        write_report_blocks(p + 4, rb, nb_rb);
        return written;
    }
}

/** Bytes of an SDES item on the wire (type, length, value), or -1 if invalid. */
static int sdes_item_size(const LCVRTCPSdesItem *it)
{
    int len = it->len;

    if (it->type < LCV_SDES_END || it->type > 255 || len < 0)
        return -1;
    if (it->type == LCV_SDES_END)   /* a chunk without items, as the iterator gives it */
        return len ? -1 : 0;
    if (it->type == LCV_SDES_PRIV) {
        if (it->prefix_len < 0 || it->prefix_len > 255 || (it->prefix_len && !it->prefix))
            return -1;
        len += 1 + it->prefix_len;
    }
    return len > 255 ? -1 : 2 + len;
}

/* Whether item i starts a chunk: the first item, a new SSRC, and an END item
 * (a chunk without items) and the item after it, which are chunks of their
 * own even next to items of the same SSRC. */
static int sdes_new_chunk(const LCVRTCPSdesItem *items, int i)
{
    return !i || items[i].ssrc != items[i - 1].ssrc ||
           items[i].type == LCV_SDES_END || items[i - 1].type == LCV_SDES_END;
}

int lcv_rtcp_write_sdes(LCVRTCPWriter *w, const LCVRTCPSdesItem *items, int nb_items)
{
    int len = 0, chunks = 0, chunk = 0;
    uint8_t *q;

    if (nb_items < 0)
        return AVERROR(EINVAL);
    /* a chunk per run of items of the same SSRC (an END item is a chunk of
     * its own): SSRC, items, END, padding to 32 bits; no items: an SDES
     * without chunks */
    for (int i = 0; i < nb_items; i++) {
        int size = sdes_item_size(&items[i]);
        if (size < 0)
            return AVERROR(EINVAL);
        if (sdes_new_chunk(items, i)) {
            if (i)
                len += (chunk + 4) & ~3;
            chunk = 4;
            chunks++;
        }
        chunk += size;
    }
    if (chunks)
        len += (chunk + 4) & ~3;
    if (chunks > 31)
        return AVERROR(EINVAL);
    {
        BEGIN(LCV_RTCP_SDES, chunks, len);
        memset(p, 0, len);
        q = p;
        for (int i = 0; i < nb_items; i++) {
            const LCVRTCPSdesItem *it = &items[i];
            if (sdes_new_chunk(items, i)) {
                if (i)                  /* END and padding of the last chunk */
                    q = p + ((q - p + 4) & ~3);
                AV_WB32(q, it->ssrc);
                q += 4;
            }
            if (it->type == LCV_SDES_END)
                continue;
            q[0] = it->type;
            q[1] = sdes_item_size(it) - 2;
            q += 2;
            if (it->type == LCV_SDES_PRIV) {
                *q++ = it->prefix_len;
                if (it->prefix_len)
                    memcpy(q, it->prefix, it->prefix_len);
                q += it->prefix_len;
            }
            if (it->len)
                memcpy(q, it->value, it->len);
            q += it->len;
        }
        return written;
    }
}

int lcv_rtcp_write_bye(LCVRTCPWriter *w, const uint32_t *ssrcs, int nb_ssrc,
                       const char *reason)
{
    int rlen = reason ? strlen(reason) : 0, body;

    if (nb_ssrc < 0 || nb_ssrc > 31 || rlen > 255)
        return AVERROR(EINVAL);
    body = 4 * nb_ssrc + (reason ? (1 + rlen + 3) & ~3 : 0);
    {
        BEGIN(LCV_RTCP_BYE, nb_ssrc, body);
        memset(p, 0, body);
        for (int i = 0; i < nb_ssrc; i++)
            AV_WB32(p + 4 * i, ssrcs[i]);
        if (reason) {
            p[4 * nb_ssrc] = rlen;
            memcpy(p + 4 * nb_ssrc + 1, reason, rlen);
        }
        return written;
    }
}

int lcv_rtcp_write_app(LCVRTCPWriter *w, int subtype, uint32_t ssrc, const char name[4],
                       const uint8_t *payload, int payload_size)
{
    if (payload_size < 0 || payload_size % 4)
        return AVERROR(EINVAL);
    {
        BEGIN(LCV_RTCP_APP, subtype, 8 + payload_size);
        AV_WB32(p, ssrc);
        memcpy(p + 4, name, 4);
        if (payload_size)
            memcpy(p + 8, payload, payload_size);
        return written;
    }
}

static uint8_t *begin_fb(LCVRTCPWriter *w, int type, int fmt, uint32_t ssrc,
                         uint32_t media_ssrc, int fci_size)
{
    uint8_t *p = begin(w, type, fmt, 8 + fci_size);

    if (p) {
        AV_WB32(p, ssrc);
        AV_WB32(p + 4, media_ssrc);
    }
    return p ? p + 8 : NULL;
}

/* NACK items: a PID and the next 16 losses as a bit mask; returns the
 * count, and writes them if out */
static int pack_nack(const uint16_t *seqs, int nb, uint8_t *out)
{
    int items = 0;
    uint16_t pid = 0, blp = 0;

    for (int i = 0; i < nb; i++) {
        uint16_t d = seqs[i] - pid;
        if (items && d >= 1 && d <= 16) {
            blp |= 1 << (d - 1);
        } else if (!items || d) {
            if (items && out)
                AV_WB16(out + 4 * (items - 1) + 2, blp);
            pid = seqs[i];
            blp = 0;
            if (out)
                AV_WB16(out + 4 * items, pid);
            items++;
        }
    }
    if (items && out)
        AV_WB16(out + 4 * (items - 1) + 2, blp);
    return items;
}

int lcv_rtcp_write_nack(LCVRTCPWriter *w, uint32_t ssrc, uint32_t media_ssrc,
                        const uint16_t *seqs, int nb_seqs)
{
    int items;
    uint8_t *p;

    if (nb_seqs < 1)
        return AVERROR(EINVAL);
    items = pack_nack(seqs, nb_seqs, NULL);
    p = begin_fb(w, LCV_RTCP_RTPFB, LCV_RTPFB_NACK, ssrc, media_ssrc, 4 * items);
    if (!p)
        return AVERROR(ENOSPC);
    pack_nack(seqs, nb_seqs, p);
    return 12 + 4 * items;
}

/* bitrate as mantissa (bits wide) and exponent, exact when the bitrate has
 * at most bits significant bits, rounded down otherwise. UINT64_MAX, which
 * the parser reports for a value beyond 64 bits, goes out as the largest
 * mantissa with exponent 63, which parses back to UINT64_MAX. */
static int mantissa_exp(uint64_t bitrate, int bits, uint32_t *mantissa)
{
    int e = 0;

    if (bitrate == UINT64_MAX) {
        *mantissa = (1u << bits) - 1;
        return 63;
    }
    while (bitrate >> bits) {
        bitrate >>= 1;
        e++;
    }
    *mantissa = bitrate;
    return e;
}

int lcv_rtcp_write_tmmb(LCVRTCPWriter *w, int fmt, uint32_t ssrc,
                        const LCVRTCPTmmbItem *items, int nb_items)
{
    uint8_t *p;

    if ((fmt != LCV_RTPFB_TMMBR && fmt != LCV_RTPFB_TMMBN) || nb_items < 0 ||
        (fmt == LCV_RTPFB_TMMBR && !nb_items))
        return AVERROR(EINVAL);
    for (int i = 0; i < nb_items; i++)
        if (items[i].overhead < 0 || items[i].overhead > 511)
            return AVERROR(EINVAL);
    p = begin_fb(w, LCV_RTCP_RTPFB, fmt, ssrc, 0, 8 * nb_items);
    if (!p)
        return AVERROR(ENOSPC);
    for (int i = 0; i < nb_items; i++) {
        uint32_t m;
        int e = mantissa_exp(items[i].bitrate, 17, &m);
        AV_WB32(p + 8 * i, items[i].ssrc);
        AV_WB32(p + 8 * i + 4, (uint32_t)e << 26 | (uint32_t)m << 9 | items[i].overhead);
    }
    return 12 + 8 * nb_items;
}

int lcv_rtcp_write_rrr(LCVRTCPWriter *w, uint32_t ssrc, uint32_t media_ssrc)
{
    return begin_fb(w, LCV_RTCP_RTPFB, LCV_RTPFB_RRR, ssrc, media_ssrc, 0) ? 12 : AVERROR(ENOSPC);
}

int lcv_rtcp_write_pli(LCVRTCPWriter *w, uint32_t ssrc, uint32_t media_ssrc)
{
    return begin_fb(w, LCV_RTCP_PSFB, LCV_PSFB_PLI, ssrc, media_ssrc, 0) ? 12 : AVERROR(ENOSPC);
}

/* TWCC chunks: a run-length chunk for runs of 14 or more, else a 1-bit
 * vector when the next 14 statuses are all 0 or 1, else a 2-bit vector of 7.
 * Returns the chunk count; writes them if out. */
static int pack_twcc(const LCVRTCPTwccItem *items, int n, uint8_t *out)
{
    int chunks = 0;

    for (int i = 0; i < n;) {
        int run = 1, chunk, small = 1, take;
        while (i + run < n && run < 8191 && items[i + run].status == items[i].status)
            run++;
        for (int k = i; k < FFMIN(n, i + 14); k++)
            small &= items[k].status <= 1;
        if (run >= 14 || (run == n - i && run >= 7)) {
            chunk = items[i].status << 13 | run;
            take  = run;
        } else if (small) {
            take  = FFMIN(14, n - i);
            chunk = 0x8000;
            for (int k = 0; k < take; k++)
                chunk |= items[i + k].status << (13 - k);
        } else {
            take  = FFMIN(7, n - i);
            chunk = 0xc000;
            for (int k = 0; k < take; k++)
                chunk |= items[i + k].status << (12 - 2 * k);
        }
        if (out)
            AV_WB16(out + 2 * chunks, chunk);
        chunks++;
        i += take;
    }
    return chunks;
}

int lcv_rtcp_write_twcc(LCVRTCPWriter *w, uint32_t ssrc, uint32_t media_ssrc,
                        const LCVRTCPTwcc *twcc, const LCVRTCPTwccItem *items)
{
    const int n = twcc->status_count;
    int deltas = 0, chunks, fci;
    uint8_t *p, *d;

    if (twcc->reference_time < -(1 << 23) || twcc->reference_time >= 1 << 23)
        return AVERROR(EINVAL);
    for (int i = 0; i < n; i++) {
        switch (items[i].status) {
        case 0:  break;
        case 1:  if (items[i].delta < 0 || items[i].delta > 255) return AVERROR(EINVAL);
                 deltas += 1; break;
        case 2:  if (items[i].delta < INT16_MIN || items[i].delta > INT16_MAX) return AVERROR(EINVAL);
                 deltas += 2; break;
        default: return AVERROR(EINVAL);
        }
    }
    chunks = pack_twcc(items, n, NULL);
    fci = (8 + 2 * chunks + deltas + 3) & ~3;
    p = begin_fb(w, LCV_RTCP_RTPFB, LCV_RTPFB_TWCC, ssrc, media_ssrc, fci);
    if (!p)
        return AVERROR(ENOSPC);
    memset(p, 0, fci);
    AV_WB16(p, twcc->base_seq);
    AV_WB16(p + 2, n);
    AV_WB24(p + 4, twcc->reference_time & 0xffffff);
    p[7] = twcc->fb_count;
    pack_twcc(items, n, p + 8);
    d = p + 8 + 2 * chunks;
    for (int i = 0; i < n; i++) {
        if (items[i].status == 1)
            *d++ = items[i].delta;
        else if (items[i].status == 2) {
            AV_WB16(d, items[i].delta);
            d += 2;
        }
    }
    return 12 + fci;
}

int lcv_rtcp_write_ccfb(LCVRTCPWriter *w, uint32_t ssrc, uint32_t report_timestamp,
                        const LCVRTCPCcfbItem *items, int nb_items)
{
    int body = 4 + 4, i;
    uint8_t *p, *q;

    /* size: one block per run of consecutive seq of one ssrc */
    for (i = 0; i < nb_items;) {
        int n = 1;
        while (i + n < nb_items && n < 16384 && items[i + n].ssrc == items[i].ssrc &&
               items[i + n].seq == (uint16_t)(items[i].seq + n))
            n++;
        body += 8 + ((n + 1) / 2) * 4;
        i += n;
    }
    for (i = 0; i < nb_items; i++)
        if (items[i].ato > 0x1fff || items[i].ecn < 0 || items[i].ecn > 3)
            return AVERROR(EINVAL);
    p = begin(w, LCV_RTCP_RTPFB, LCV_RTPFB_CCFB, body);
    if (!p)
        return AVERROR(ENOSPC);
    memset(p, 0, body);
    AV_WB32(p, ssrc);
    q = p + 4;
    for (i = 0; i < nb_items;) {
        int n = 1;
        while (i + n < nb_items && n < 16384 && items[i + n].ssrc == items[i].ssrc &&
               items[i + n].seq == (uint16_t)(items[i].seq + n))
            n++;
        AV_WB32(q, items[i].ssrc);
        AV_WB16(q + 4, items[i].seq);
        AV_WB16(q + 6, n);
        for (int k = 0; k < n; k++) {
            const LCVRTCPCcfbItem *it = &items[i + k];
            AV_WB16(q + 8 + 2 * k, !!it->received << 15 | it->ecn << 13 | it->ato);
        }
        q += 8 + ((n + 1) / 2) * 4;
        i += n;
    }
    AV_WB32(q, report_timestamp);
    return 4 + body;
}

int lcv_rtcp_write_sli(LCVRTCPWriter *w, uint32_t ssrc, uint32_t media_ssrc,
                       const LCVRTCPSliItem *items, int nb_items)
{
    uint8_t *p;

    if (nb_items < 1)
        return AVERROR(EINVAL);
    p = begin_fb(w, LCV_RTCP_PSFB, LCV_PSFB_SLI, ssrc, media_ssrc, 4 * nb_items);
    if (!p)
        return AVERROR(ENOSPC);
    for (int i = 0; i < nb_items; i++)
        AV_WB32(p + 4 * i, (uint32_t)(items[i].first & 0x1fff) << 19 |
                           (uint32_t)(items[i].number & 0x1fff) << 6 |
                           (items[i].picture_id & 0x3f));
    return 12 + 4 * nb_items;
}

int lcv_rtcp_write_rpsi(LCVRTCPWriter *w, uint32_t ssrc, uint32_t media_ssrc,
                        const LCVRTCPRpsi *rpsi)
{
    const int bytes = (rpsi->nb_bits + 7) / 8;
    const int fci = (2 + bytes + 3) & ~3;
    uint8_t *p;

    if (rpsi->nb_bits < 0 || rpsi->payload_type > 127)
        return AVERROR(EINVAL);
    p = begin_fb(w, LCV_RTCP_PSFB, LCV_PSFB_RPSI, ssrc, media_ssrc, fci);
    if (!p)
        return AVERROR(ENOSPC);
    memset(p, 0, fci);
    p[0] = (fci - 2) * 8 - rpsi->nb_bits;
    p[1] = rpsi->payload_type;
    if (bytes)
        memcpy(p + 2, rpsi->bits, bytes);
    if (rpsi->nb_bits % 8)          /* clear the bits past the string */
        p[1 + bytes] &= 0xff00 >> (rpsi->nb_bits % 8);
    return 12 + fci;
}

int lcv_rtcp_write_fir(LCVRTCPWriter *w, int fmt, uint32_t ssrc,
                       const LCVRTCPFirItem *items, int nb_items)
{
    uint8_t *p;

    if ((fmt != LCV_PSFB_FIR && fmt != LCV_PSFB_TSTR && fmt != LCV_PSFB_TSTN) || nb_items < 1)
        return AVERROR(EINVAL);
    p = begin_fb(w, LCV_RTCP_PSFB, fmt, ssrc, 0, 8 * nb_items);
    if (!p)
        return AVERROR(ENOSPC);
    for (int i = 0; i < nb_items; i++) {
        AV_WB32(p + 8 * i, items[i].ssrc);
        AV_WB32(p + 8 * i + 4, (uint32_t)items[i].seq << 24 |
                               (fmt == LCV_PSFB_FIR ? 0 : items[i].index & 0x1f));
    }
    return 12 + 8 * nb_items;
}

int lcv_rtcp_write_vbcm(LCVRTCPWriter *w, uint32_t ssrc,
                        const LCVRTCPVbcmItem *items, int nb_items)
{
    int fci = 0;
    uint8_t *p;

    if (nb_items < 1)
        return AVERROR(EINVAL);
    for (int i = 0; i < nb_items; i++) {
        if (items[i].len < 0 || items[i].len > 65535 || items[i].payload_type > 127)
            return AVERROR(EINVAL);
        fci += 8 + ((items[i].len + 3) & ~3);
    }
    p = begin_fb(w, LCV_RTCP_PSFB, LCV_PSFB_VBCM, ssrc, 0, fci);
    if (!p)
        return AVERROR(ENOSPC);
    memset(p, 0, fci);
    for (int i = 0; i < nb_items; i++) {
        AV_WB32(p, items[i].ssrc);
        p[4] = items[i].seq;
        p[5] = items[i].payload_type;
        AV_WB16(p + 6, items[i].len);
        if (items[i].len)
            memcpy(p + 8, items[i].data, items[i].len);
        p += 8 + ((items[i].len + 3) & ~3);
    }
    return 12 + fci;
}

int lcv_rtcp_write_remb(LCVRTCPWriter *w, uint32_t ssrc, uint64_t bitrate,
                        const uint32_t *ssrcs, int nb_ssrc)
{
    uint32_t m;
    int e = mantissa_exp(bitrate, 18, &m);
    uint8_t *p;

    if (nb_ssrc < 0 || nb_ssrc > 255)
        return AVERROR(EINVAL);
    p = begin_fb(w, LCV_RTCP_PSFB, LCV_PSFB_AFB, ssrc, 0, 8 + 4 * nb_ssrc);
    if (!p)
        return AVERROR(ENOSPC);
    memcpy(p, "REMB", 4);
    p[4] = nb_ssrc;
    AV_WB24(p + 5, (uint32_t)e << 18 | (uint32_t)m);
    for (int i = 0; i < nb_ssrc; i++)
        AV_WB32(p + 8 + 4 * i, ssrcs[i]);
    return 20 + 4 * nb_ssrc;
}

int lcv_rtcp_write_xr(LCVRTCPWriter *w, uint32_t ssrc,
                      const LCVRTCPXrBlock *blocks, int nb_blocks)
{
    int body = 4;

    for (int i = 0; i < nb_blocks; i++) {
        if (blocks[i].size < 0 || blocks[i].size % 4 || blocks[i].size > 4 * 65535 ||
            blocks[i].type < 0 || blocks[i].type > 255)
            return AVERROR(EINVAL);
        body += 4 + blocks[i].size;
    }
    {
        BEGIN(LCV_RTCP_XR, 0, body);
        AV_WB32(p, ssrc);
        p += 4;
        for (int i = 0; i < nb_blocks; i++) {
            p[0] = blocks[i].type;
            p[1] = blocks[i].type_specific;
            AV_WB16(p + 2, blocks[i].size / 4);
            if (blocks[i].size)
                memcpy(p + 4, blocks[i].data, blocks[i].size);
            p += 4 + blocks[i].size;
        }
        return written;
    }
}

static int xr_block(LCVRTCPXrBlock *b, uint8_t *buf, int buf_size, int type, int ts, int size)
{
    if (buf_size < size)
        return AVERROR(ENOSPC);
    memset(buf, 0, size);
    b->type          = type;
    b->type_specific = ts;
    b->data          = buf;
    b->size          = size;
    return size;
}

int lcv_rtcp_xr_make_rrtr(LCVRTCPXrBlock *b, uint8_t *buf, int buf_size, uint64_t ntp)
{
    int ret = xr_block(b, buf, buf_size, LCV_XR_RRTR, 0, 8);
    if (ret >= 0)
        AV_WB64(buf, ntp);
    return ret;
}

int lcv_rtcp_xr_make_dlrr(LCVRTCPXrBlock *b, uint8_t *buf, int buf_size,
                          const LCVRTCPDlrrItem *items, int nb_items)
{
    int ret;

    if (nb_items < 0 || nb_items > 5461)
        return AVERROR(EINVAL);
    ret = xr_block(b, buf, buf_size, LCV_XR_DLRR, 0, 12 * nb_items);
    for (int i = 0; ret >= 0 && i < nb_items; i++) {
        AV_WB32(buf + 12 * i,     items[i].ssrc);
        AV_WB32(buf + 12 * i + 4, items[i].lrr);
        AV_WB32(buf + 12 * i + 8, items[i].dlrr);
    }
    return ret;
}

int lcv_rtcp_xr_make_range(LCVRTCPXrBlock *b, uint8_t *buf, int buf_size, int type,
                           const LCVRTCPXrRange *r, const uint32_t *values, int nb_values)
{
    const int prt = type == LCV_XR_PRT;
    int size, ret;

    if ((type != LCV_XR_LRLE && type != LCV_XR_DRLE && !prt) || nb_values < 0 ||
        nb_values > 16000 || r->thinning < 0 || r->thinning > 15)
        return AVERROR(EINVAL);
    /* chunks are 16 bits: an odd count ends with a null chunk */
    size = 8 + (prt ? 4 * nb_values : ((nb_values + 1) & ~1) * 2);
    ret  = xr_block(b, buf, buf_size, type, r->thinning, size);
    if (ret < 0)
        return ret;
    AV_WB32(buf, r->ssrc);
    AV_WB16(buf + 4, r->begin_seq);
    AV_WB16(buf + 6, r->end_seq);
    for (int i = 0; i < nb_values; i++) {
        if (prt)
            AV_WB32(buf + 8 + 4 * i, values[i]);
        else
            AV_WB16(buf + 8 + 2 * i, values[i]);
    }
    return ret;
}

int lcv_rtcp_xr_make_stats(LCVRTCPXrBlock *b, uint8_t *buf, int buf_size,
                           const LCVRTCPXrStats *s)
{
    int ret;

    if (s->flags < 0 || s->flags > 255)
        return AVERROR(EINVAL);
    ret = xr_block(b, buf, buf_size, LCV_XR_STATS, s->flags, 36);
    if (ret < 0)
        return ret;
    AV_WB32(buf,      s->ssrc);
    AV_WB16(buf + 4,  s->begin_seq);
    AV_WB16(buf + 6,  s->end_seq);
    AV_WB32(buf + 8,  s->lost);
    AV_WB32(buf + 12, s->dup);
    AV_WB32(buf + 16, s->min_jitter);
    AV_WB32(buf + 20, s->max_jitter);
    AV_WB32(buf + 24, s->mean_jitter);
    AV_WB32(buf + 28, s->dev_jitter);
    buf[32] = s->min_ttl;
    buf[33] = s->max_ttl;
    buf[34] = s->mean_ttl;
    buf[35] = s->dev_ttl;
    return ret;
}

int lcv_rtcp_xr_make_voip(LCVRTCPXrBlock *b, uint8_t *buf, int buf_size,
                          const LCVRTCPXrVoip *v)
{
    int ret = xr_block(b, buf, buf_size, LCV_XR_VOIP, 0, 32);

    if (ret < 0)
        return ret;
    AV_WB32(buf, v->ssrc);
    buf[4] = v->loss_rate;
    buf[5] = v->discard_rate;
    buf[6] = v->burst_density;
    buf[7] = v->gap_density;
    AV_WB16(buf + 8,  v->burst_duration);
    AV_WB16(buf + 10, v->gap_duration);
    AV_WB16(buf + 12, v->round_trip_delay);
    AV_WB16(buf + 14, v->end_system_delay);
    buf[16] = v->signal_level;
    buf[17] = v->noise_level;
    buf[18] = v->rerl;
    buf[19] = v->gmin;
    buf[20] = v->r_factor;
    buf[21] = v->ext_r_factor;
    buf[22] = v->mos_lq;
    buf[23] = v->mos_cq;
    buf[24] = v->rx_config;
    AV_WB16(buf + 26, v->jb_nominal);
    AV_WB16(buf + 28, v->jb_maximum);
    AV_WB16(buf + 30, v->jb_abs_max);
    return ret;
}

int lcv_rtcp_write_raw(LCVRTCPWriter *w, int type, int fmt,
                       const uint8_t *payload, int payload_size)
{
    if (type < 0 || type > 255 || payload_size < 0 || payload_size % 4)
        return AVERROR(EINVAL);
    {
        BEGIN(type, fmt, payload_size);
        if (payload_size)
            memcpy(p, payload, payload_size);
        return written;
    }
}
