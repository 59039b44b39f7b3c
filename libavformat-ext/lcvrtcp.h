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
 * @ingroup lcv_rtcp
 * Public RTCP library: parse and build every RTCP packet type, with
 * recycled parse contexts and no allocations.
 */

#ifndef AVFORMAT_LCVRTCP_H
#define AVFORMAT_LCVRTCP_H

#include <stddef.h>
#include <stdint.h>

#include "libavutil/attributes.h"
#include "libavutil/intreadwrite.h"
#include "libavutil/macros.h"

/**
 * @defgroup lcv_rtcp_version Version of the RTCP library
 * The MINOR number grows when something is added (a function, a packet
 * type, a field at the end of a struct that the library allocates or whose
 * size the caller passes), MAJOR when something changes or goes. Version
 * 2 takes the parse contexts from the library only (their size is its
 * own). Compare lcv_rtcp_version() (the library linked) with
 * LCV_RTCP_VERSION_INT (the header compiled against).
 * @{
 */
#define LCV_RTCP_VERSION_MAJOR 2
#define LCV_RTCP_VERSION_MINOR 0
#define LCV_RTCP_VERSION_MICRO 0
#define LCV_RTCP_VERSION_INT AV_VERSION_INT(LCV_RTCP_VERSION_MAJOR, LCV_RTCP_VERSION_MINOR, \
                                            LCV_RTCP_VERSION_MICRO)

/** LCV_RTCP_VERSION_INT of the library linked */
unsigned lcv_rtcp_version(void);
/** @} */

/**
 * @defgroup lcv_rtcp RTCP parsing and building
 * @{
 *
 * The prefix lcv_ ("low-CPU video") marks this project's public API. The
 * statistics of FFmpeg's RTP muxer and demuxer are in libavformat/lcvrtp.h.
 *
 * @section lcv_rtcp_parse Parsing
 *
 * lcv_rtcp_parse() validates a whole compound datagram once (RFC 3550 A.2,
 * or RFC 5506 reduced-size with ::LCV_RTCP_FLAG_REDUCED_SIZE, plus the
 * length rules of every known packet type) and fills an ::LCVRTCPContext
 * with one ::LCVRTCPPacket per packet. Packets are zero-copy views: their
 * pointers point into the caller's datagram, and every accessor below reads
 * only bytes that the validation already checked, so nothing outside the
 * datagram is ever read. Variable-length parts (report blocks, SDES items,
 * NACK losses, TWCC statuses, XR blocks...) are walked with small iterator
 * structs on the caller's stack; nothing allocates.
 *
 * @section lcv_rtcp_lifetime Lifetime and ownership
 *
 * - The views in a context are valid while the datagram bytes passed to
 *   lcv_rtcp_parse() stay unchanged and allocated, and until the context is
 *   parsed into again or released. The library never copies or frees the
 *   datagram.
 * - To keep a parse result beyond the next datagram, keep the datagram's
 *   memory and the context: take another context from the pool for the next
 *   one. Contexts are independent; each is used by one thread at a time.
 * - Contexts come from an ::LCVRTCPPool (thread-safe, built on
 *   AVBufferPool, with a one-context cache per thread for up to 8 threads
 *   and a shared one for the others): lcv_rtcp_pool_get() reuses released
 *   contexts, so the steady state allocates nothing (and runs one atomic
 *   exchange per get + release). lcv_rtcp_context_release() gives one
 *   back, from any thread. A pool allocates at most max_contexts contexts; a caller that
 *   never releases gets NULL from then on instead of unbounded growth.
 * - lcv_rtcp_pool_free() releases the caller's hold on the pool. Contexts
 *   still out stay valid until each is released, which may happen after
 *   or concurrently with lcv_rtcp_pool_free(); the memory is freed when the
 *   last one comes back. lcv_rtcp_pool_get() must not be called once
 *   lcv_rtcp_pool_free() has started. A context never released is a leak
 *   of that one context, never a crash; a thread that exits leaves at most
 *   one cached context, freed by lcv_rtcp_pool_free().
 * - A single context comes from lcv_rtcp_context_alloc() (and goes with
 *   lcv_rtcp_context_free()); the pool is for programs that want to hand
 *   contexts between threads or keep several. Contexts come only from the
 *   library: fields may be added to ::LCVRTCPContext, so a program never
 *   makes one itself (on the stack, in a struct) nor copies one.
 *
 * @section lcv_rtcp_build Building
 *
 * An ::LCVRTCPWriter appends packets to a caller-supplied buffer; each
 * lcv_rtcp_write_*() checks the space left and returns AVERROR(ENOSPC)
 * without writing a partial packet. lcv_rtcp_writer_finish() pads the last
 * packet (P bit and count byte) and returns the compound size.
 */

/** Packet types (PT) */
enum LCVRTCPType {
    LCV_RTCP_SR    = 200,
    LCV_RTCP_RR    = 201,
    LCV_RTCP_SDES  = 202,
    LCV_RTCP_BYE   = 203,
    LCV_RTCP_APP   = 204,
    LCV_RTCP_RTPFB = 205,   ///< transport layer feedback, RFC 4585
    LCV_RTCP_PSFB  = 206,   ///< payload-specific feedback, RFC 4585
    LCV_RTCP_XR    = 207,   ///< extended reports, RFC 3611
};

/** RTPFB feedback message types (FMT) */
enum LCVRTCPRtpfbFmt {
    LCV_RTPFB_NACK  = 1,    ///< generic NACK, RFC 4585
    LCV_RTPFB_TMMBR = 3,    ///< RFC 5104
    LCV_RTPFB_TMMBN = 4,    ///< RFC 5104
    LCV_RTPFB_RRR   = 5,    ///< rapid resynchronisation request, RFC 6051
    LCV_RTPFB_CCFB  = 11,   ///< congestion control feedback, RFC 8888
    LCV_RTPFB_TWCC  = 15,   ///< transport-wide CC (draft-holmer-rmcat-transport-wide-cc-extensions)
};

/** PSFB feedback message types (FMT) */
enum LCVRTCPPsfbFmt {
    LCV_PSFB_PLI  = 1,      ///< picture loss indication, RFC 4585
    LCV_PSFB_SLI  = 2,      ///< slice loss indication, RFC 4585
    LCV_PSFB_RPSI = 3,      ///< reference picture selection indication, RFC 4585
    LCV_PSFB_FIR  = 4,      ///< full intra request, RFC 5104
    LCV_PSFB_TSTR = 5,      ///< temporal-spatial trade-off request, RFC 5104
    LCV_PSFB_TSTN = 6,      ///< temporal-spatial trade-off notification, RFC 5104
    LCV_PSFB_VBCM = 7,      ///< video back channel message, RFC 5104
    LCV_PSFB_AFB  = 15,     ///< application layer feedback (REMB when it starts with "REMB")
};

/** SDES item types, RFC 3550 6.5, plus MID (RFC 8843) and RID (RFC 8852) */
enum LCVRTCPSdesType {
    LCV_SDES_END   = 0,
    LCV_SDES_CNAME = 1,
    LCV_SDES_NAME  = 2,
    LCV_SDES_EMAIL = 3,
    LCV_SDES_PHONE = 4,
    LCV_SDES_LOC   = 5,
    LCV_SDES_TOOL  = 6,
    LCV_SDES_NOTE  = 7,
    LCV_SDES_PRIV  = 8,
    LCV_SDES_MID   = 15,
    LCV_SDES_RID   = 13,
    LCV_SDES_REPAIRED_RID = 14,
};

/** XR block types, RFC 3611 */
enum LCVRTCPXrType {
    LCV_XR_LRLE  = 1,       ///< loss run-length encoding
    LCV_XR_DRLE  = 2,       ///< duplicate run-length encoding
    LCV_XR_PRT   = 3,       ///< packet receipt times
    LCV_XR_RRTR  = 4,       ///< receiver reference time
    LCV_XR_DLRR  = 5,       ///< delay since last receiver report
    LCV_XR_STATS = 6,       ///< statistics summary
    LCV_XR_VOIP  = 7,       ///< VoIP metrics
};

/** Parse flags */
#define LCV_RTCP_FLAG_REDUCED_SIZE 1 ///< RFC 5506: allow any first packet, a lone packet
#define LCV_RTCP_FLAG_KEEP_VALID   2 ///< on error, keep the packets before the bad one

/** Most packets one context holds; a datagram with more is refused. */
#define LCV_RTCP_MAX_PACKETS 64

/**
 * One report block of an SR or RR (RFC 3550 6.4.1), decoded.
 */
typedef struct LCVRTCPReportBlock {
    uint32_t ssrc;
    uint8_t  fraction_lost;     ///< 8-bit fixed point, lost / expected * 256
    int32_t  cumulative_lost;   ///< 24-bit signed, sign-extended
    uint32_t highest_seq;       ///< extended highest sequence number received
    uint32_t jitter;
    uint32_t lsr;               ///< middle 32 bits of the last SR's NTP time
    uint32_t dlsr;              ///< delay since last SR, 1/65536 s
} LCVRTCPReportBlock;

/**
 * A validated packet of a compound datagram: its common header, and views
 * of its parts. Which union member is valid depends on type (and fmt).
 */
typedef struct LCVRTCPPacket {
    int type;                   ///< PT
    int fmt;                    ///< the 5-bit count / FMT / subtype field
    const uint8_t *data;        ///< the packet, header included
    int size;                   ///< bytes, header included, padding excluded
    int padding;                ///< padding bytes after size (last packet only)
    uint32_t ssrc;              ///< first word after the header (sender SSRC), 0 if absent
    union {
        /** SR and RR; ntp, rtp_ts, packets, octets are 0 for RR */
        struct {
            uint64_t ntp;
            uint32_t rtp_ts, packets, octets;
            int nb_reports;
            const uint8_t *reports;     ///< nb_reports * 24 bytes
            const uint8_t *ext;         ///< profile-specific extension
            int ext_size;
        } rr;
        /** SDES: walk with lcv_rtcp_sdes_next() */
        struct {
            int nb_chunks;
        } sdes;
        /** BYE */
        struct {
            int nb_ssrc;
            const uint8_t *ssrcs;       ///< nb_ssrc * 4 bytes, the first one is in ssrc too
            const uint8_t *reason;      ///< NULL if none
            int reason_len;
        } bye;
        /** APP */
        struct {
            char name[5];               ///< 4 ASCII characters, NUL-terminated here
            const uint8_t *payload;
            int payload_size;
        } app;
        /** RTPFB and PSFB (but RTPFB CCFB: see ccfb) */
        struct {
            uint32_t media_ssrc;
            const uint8_t *fci;         ///< feedback control information
            int fci_size;
        } fb;
        /** RTPFB CCFB (RFC 8888): walk with lcv_rtcp_ccfb_next() */
        struct {
            uint32_t report_timestamp;  ///< compact NTP (16.16)
            const uint8_t *blocks;
            int blocks_size;
        } ccfb;
        /** XR: walk with lcv_rtcp_xr_next() */
        struct {
            const uint8_t *blocks;
            int blocks_size;
        } xr;
        /** any other type: the bytes after the header */
        struct {
            const uint8_t *payload;
            int payload_size;
        } raw;
    };
} LCVRTCPPacket;

/**
 * A parse context: the packets of the last datagram parsed into it. Only
 * from lcv_rtcp_context_alloc() or lcv_rtcp_pool_get(): its size is the
 * library's, and fields may be added at its end.
 */
typedef struct LCVRTCPContext {
    int nb_packets;
    /**
     * The packets, LCV_RTCP_MAX_PACKETS of room (in the context's own
     * allocation). ::LCVRTCPPacket changes size only with MAJOR.
     */
    LCVRTCPPacket *packets;
    /** Set when lcv_rtcp_parse() fails: why, and at which byte offset. */
    const char *error;
    int error_offset;
    /** the pool buffer of a pooled context, NULL otherwise, and its pool
     *  (private) */
    void *pool_ref, *pool;
} LCVRTCPContext;

/** A context of its own (no pool), or NULL on allocation failure. */
LCVRTCPContext *lcv_rtcp_context_alloc(void);

/** Free a context of lcv_rtcp_context_alloc() (a pooled one is released);
 *  *ctx is set to NULL. */
void lcv_rtcp_context_free(LCVRTCPContext **ctx);

/**
 * Validate a compound RTCP datagram and fill ctx with views of its packets.
 * Reads exactly size bytes from data and nothing else.
 *
 * @param flags LCV_RTCP_FLAG_*
 * @return the number of packets, or AVERROR_INVALIDDATA with ctx->error
 *         and ctx->error_offset set (ctx->nb_packets is then 0, or with
 *         ::LCV_RTCP_FLAG_KEEP_VALID the number of valid packets before the
 *         bad one)
 */
int lcv_rtcp_parse(LCVRTCPContext *ctx, const uint8_t *data, int size, int flags);

/** @name Typed accessors: valid only on packets of the matching type
 *  @{ */

/**
 * Decode report block i (0 <= i < rr.nb_reports) of an SR or RR.
 * Inline, like lcv_rtcp_sdes_next() and lcv_rtcp_nack_next(): these run
 * for every report block, item and loss, and inline their state stays in
 * registers.
 */
static av_always_inline void lcv_rtcp_report_block(const LCVRTCPPacket *pkt, int i,
                                                   LCVRTCPReportBlock *rb)
{
    const uint8_t *p = pkt->rr.reports + 24 * i;

    rb->ssrc            = AV_RB32(p);
    rb->fraction_lost   = p[4];
    rb->cumulative_lost = (int32_t)(AV_RB24(p + 5) ^ 0x800000) - 0x800000;
    rb->highest_seq     = AV_RB32(p + 8);
    rb->jitter          = AV_RB32(p + 12);
    rb->lsr             = AV_RB32(p + 16);
    rb->dlsr            = AV_RB32(p + 20);
}

/** An SDES item, as returned by lcv_rtcp_sdes_next(). */
typedef struct LCVRTCPSdesItem {
    uint32_t ssrc;              ///< of the chunk the item is in
    int type;                   ///< LCVRTCPSdesType
    const uint8_t *value;       ///< not NUL-terminated
    int len;
    /** PRIV items: the prefix, and value/len hold the rest */
    const uint8_t *prefix;
    int prefix_len;
} LCVRTCPSdesItem;

/** Iterator over the list of a packet; its fields are private state. */
typedef struct LCVRTCPIter {
    const uint8_t *p, *q, *end;
    uint32_t a, b;
    int i, n, k, type;
    int64_t t;
} LCVRTCPIter;

/** Start walking a packet's list (SDES, NACK, XR, CCFB, TWCC, ...). */
static inline void lcv_rtcp_iter_init(LCVRTCPIter *it, const LCVRTCPPacket *pkt)
{
    const uint8_t *fci = pkt->fb.fci;

    it->p    = NULL;
    it->q    = NULL;
    it->a    = it->b = 0;
    it->i    = it->n = it->k = 0;
    it->t    = 0;
    it->type = pkt->type << 8 | pkt->fmt;
    it->end  = pkt->data + pkt->size;
    if (pkt->type == LCV_RTCP_SDES) {
        it->p = pkt->data + 4;
        it->n = pkt->sdes.nb_chunks;
    } else if (pkt->type == LCV_RTCP_XR) {
        it->p = pkt->xr.blocks;
    } else if (pkt->type == LCV_RTCP_RTPFB && pkt->fmt == LCV_RTPFB_CCFB) {
        it->p   = pkt->ccfb.blocks;
        it->end = pkt->ccfb.blocks + pkt->ccfb.blocks_size;
    } else if (pkt->type == LCV_RTCP_RTPFB && pkt->fmt == LCV_RTPFB_TWCC) {
        /* p: chunks, q: receive deltas (after the chunks) */
        int remaining = AV_RB16(fci + 2), chunks = 0;
        it->n = remaining;
        it->a = AV_RB16(fci);
        it->t = (int64_t)((int32_t)(AV_RB24(fci + 4) ^ 0x800000) - 0x800000) * 64000;
        for (const uint8_t *c = fci + 8; remaining > 0; c += 2, chunks++) {
            int chunk = AV_RB16(c);
            remaining -= !(chunk & 0x8000) ? (chunk & 0x1fff) :
                         (chunk & 0x4000) ? 7 : 14;
        }
        it->p = fci + 8;
        it->q = fci + 8 + 2 * chunks;
    } else {
        it->p = fci;
    }
}

/**
 * Next SDES item; chunks without items yield one item of type
 * ::LCV_SDES_END so that their SSRC is seen. @return 1, or 0 at the end
 */
static inline int lcv_rtcp_sdes_next(LCVRTCPIter *it, LCVRTCPSdesItem *item)
{
    /* lcv_rtcp_parse() checked every length: this only steps */
    const uint8_t *p = it->p;
    int type;

    for (;;) {
        if (!it->k) {                   /* at the start of a chunk */
            if (it->i >= it->n)
                return 0;
            it->a = AV_RB32(p);
            p += 4;
            it->k = 1;
            it->b = 0;                  /* items seen in this chunk */
        }
        type = p[0];
        if (type != LCV_SDES_END)
            break;
        /* END and the padding to the next 32-bit boundary, relative to the
         * packet start; the packet length is a multiple of 4, so align on
         * the distance to the end */
        p += (it->end - p) & 3 ? (it->end - p) & 3 : 4;
        it->k = 0;
        it->i++;
        if (!it->b) {                   /* a chunk without items */
            it->p            = p;
            item->ssrc       = it->a;
            item->type       = LCV_SDES_END;
            item->value      = item->prefix = NULL;
            item->len        = item->prefix_len = 0;
            return 1;
        }
    }
    item->ssrc       = it->a;
    item->type       = type;
    item->len        = p[1];
    item->value      = p + 2;
    item->prefix     = NULL;
    item->prefix_len = 0;
    if (type == LCV_SDES_PRIV) {        /* prefix length, prefix, value */
        item->prefix_len = p[2];
        item->prefix     = p + 3;
        item->value      = p + 3 + p[2];
        item->len        = p[1] - 1 - p[2];
    }
    it->p = p + 2 + p[1];
    it->b++;
    return 1;
}

/** Next lost sequence number of a generic NACK. @return 1, or 0 at the end */
static inline int lcv_rtcp_nack_next(LCVRTCPIter *it, uint16_t *seq)
{
    /* k: the next BLP bit to look at (1..16), 0 when none is left */
    while (it->k) {
        const int bit = it->k;
        it->k = bit < 16 && it->b >> bit ? bit + 1 : 0;
        if (it->b & (1u << (bit - 1))) {
            *seq = (uint16_t)(it->a + bit);
            return 1;
        }
    }
    if (it->end - it->p < 4)
        return 0;
    it->a  = AV_RB16(it->p);
    it->b  = AV_RB16(it->p + 2);
    it->p += 4;
    it->k  = it->b ? 1 : 0;
    *seq = (uint16_t)it->a;
    return 1;
}

/** A TMMBR/TMMBN entry (RFC 5104 4.2.1.1) */
typedef struct LCVRTCPTmmbItem {
    uint32_t ssrc;
    uint64_t bitrate;           ///< mantissa << exp, bits per second; UINT64_MAX if that overflows
    int overhead;               ///< measured overhead, bytes per packet
} LCVRTCPTmmbItem;
int lcv_rtcp_tmmb_next(LCVRTCPIter *it, LCVRTCPTmmbItem *item);

/** A FIR, TSTR or TSTN entry (RFC 5104 4.3.1, 4.3.2, 4.3.3) */
typedef struct LCVRTCPFirItem {
    uint32_t ssrc;
    uint8_t  seq;
    uint8_t  index;             ///< TSTR/TSTN only
} LCVRTCPFirItem;
int lcv_rtcp_fir_next(LCVRTCPIter *it, LCVRTCPFirItem *item);

/** An SLI entry (RFC 4585 6.3.2) */
typedef struct LCVRTCPSliItem {
    uint16_t first;             ///< 13 bits
    uint16_t number;            ///< 13 bits
    uint8_t  picture_id;        ///< 6 bits
} LCVRTCPSliItem;
int lcv_rtcp_sli_next(LCVRTCPIter *it, LCVRTCPSliItem *item);

/** RPSI (RFC 4585 6.3.3) */
typedef struct LCVRTCPRpsi {
    uint8_t payload_type;
    const uint8_t *bits;        ///< the native RPSI bit string
    int nb_bits;
} LCVRTCPRpsi;
void lcv_rtcp_rpsi(const LCVRTCPPacket *pkt, LCVRTCPRpsi *rpsi);

/** A VBCM entry (RFC 5104 4.3.4) */
typedef struct LCVRTCPVbcmItem {
    uint32_t ssrc;
    uint8_t  seq;
    uint8_t  payload_type;
    const uint8_t *data;
    int len;
} LCVRTCPVbcmItem;
int lcv_rtcp_vbcm_next(LCVRTCPIter *it, LCVRTCPVbcmItem *item);

/** REMB (draft-alvestrand-rmcat-remb) */
typedef struct LCVRTCPRemb {
    uint64_t bitrate;           ///< bits per second; UINT64_MAX if mantissa << exp overflows
    int nb_ssrc;
    const uint8_t *ssrcs;       ///< nb_ssrc * 4 bytes
} LCVRTCPRemb;
/** @return 1 if the AFB packet is a REMB (and fill remb), else 0 */
int lcv_rtcp_remb(const LCVRTCPPacket *pkt, LCVRTCPRemb *remb);

/** TWCC header */
typedef struct LCVRTCPTwcc {
    uint16_t base_seq;
    uint16_t status_count;
    int32_t  reference_time;    ///< 24-bit signed, units of 64 ms
    uint8_t  fb_count;
} LCVRTCPTwcc;
/** One packet of a TWCC report, by lcv_rtcp_twcc_next() */
typedef struct LCVRTCPTwccItem {
    uint16_t seq;
    int status;                 ///< 0 not received, 1 small delta, 2 large delta
    int32_t delta;              ///< receive delta in 250 us units (received only)
    int64_t arrival_us;         ///< arrival time: reference time + the deltas so far
} LCVRTCPTwccItem;
void lcv_rtcp_twcc(const LCVRTCPPacket *pkt, LCVRTCPTwcc *twcc);
int lcv_rtcp_twcc_next(LCVRTCPIter *it, LCVRTCPTwccItem *item);

/** One packet report of an RFC 8888 CCFB, by lcv_rtcp_ccfb_next() */
typedef struct LCVRTCPCcfbItem {
    uint32_t ssrc;              ///< the RTP stream
    uint16_t seq;
    int received;
    int ecn;
    uint16_t ato;               ///< arrival time offset, 1/1024 s before the report timestamp
} LCVRTCPCcfbItem;
int lcv_rtcp_ccfb_next(LCVRTCPIter *it, LCVRTCPCcfbItem *item);

/** An XR block, by lcv_rtcp_xr_next() */
typedef struct LCVRTCPXrBlock {
    int type;                   ///< LCVRTCPXrType or other
    int type_specific;
    const uint8_t *data;        ///< after the 4-byte block header
    int size;
} LCVRTCPXrBlock;
int lcv_rtcp_xr_next(LCVRTCPIter *it, LCVRTCPXrBlock *block);

/** LRLE/DRLE/PRT: the fixed part (the chunks or times follow in data + 8) */
typedef struct LCVRTCPXrRange {
    uint32_t ssrc;
    uint16_t begin_seq, end_seq;
    int thinning;
} LCVRTCPXrRange;
void lcv_rtcp_xr_range(const LCVRTCPXrBlock *b, LCVRTCPXrRange *r);

/** A DLRR sub-block */
typedef struct LCVRTCPDlrrItem {
    uint32_t ssrc, lrr, dlrr;
} LCVRTCPDlrrItem;
/** DLRR sub-block i (0 <= i < size / 12) */
void lcv_rtcp_xr_dlrr(const LCVRTCPXrBlock *b, int i, LCVRTCPDlrrItem *item);

/** XR statistics summary block (RFC 3611 4.6) */
typedef struct LCVRTCPXrStats {
    uint32_t ssrc;
    uint16_t begin_seq, end_seq;
    int flags;                  ///< the type-specific byte: L, D, J, ToH
    uint32_t lost, dup;
    uint32_t min_jitter, max_jitter, mean_jitter, dev_jitter;
    uint8_t  min_ttl, max_ttl, mean_ttl, dev_ttl;   ///< or hop limits
} LCVRTCPXrStats;
void lcv_rtcp_xr_stats(const LCVRTCPXrBlock *b, LCVRTCPXrStats *s);

/** XR VoIP metrics block (RFC 3611 4.7) */
typedef struct LCVRTCPXrVoip {
    uint32_t ssrc;
    uint8_t  loss_rate, discard_rate, burst_density, gap_density;
    uint16_t burst_duration, gap_duration, round_trip_delay, end_system_delay;
    int8_t   signal_level, noise_level;             ///< dBm
    uint8_t  rerl, gmin, r_factor, ext_r_factor, mos_lq, mos_cq, rx_config;
    uint16_t jb_nominal, jb_maximum, jb_abs_max;
} LCVRTCPXrVoip;
void lcv_rtcp_xr_voip(const LCVRTCPXrBlock *b, LCVRTCPXrVoip *v);

/** @} */

/** @name Pool of parse contexts
 *  @{ */
typedef struct LCVRTCPPool LCVRTCPPool;

/**
 * @param max_contexts most contexts out at once (<= 0: 1024)
 * @return a pool, or NULL on allocation failure
 */
LCVRTCPPool *lcv_rtcp_pool_alloc(int max_contexts);

/** A context from the pool, or NULL if max_contexts are out or on ENOMEM.
 *  Its packets are empty; it belongs to the caller until released. */
LCVRTCPContext *lcv_rtcp_pool_get(LCVRTCPPool *pool);

/** Give a pooled context back; *ctx is set to NULL. */
void lcv_rtcp_context_release(LCVRTCPContext **ctx);

/** Drop the caller's hold on the pool (see Lifetime); *pool is set to NULL. */
void lcv_rtcp_pool_free(LCVRTCPPool **pool);
/** @} */

/** @name Building
 *  @{ */
typedef struct LCVRTCPWriter {
    uint8_t *buf;
    int size;                   ///< of buf
    int pos;                    ///< bytes written
    int last;                   ///< offset of the last packet, -1 before the first
} LCVRTCPWriter;

void lcv_rtcp_writer_init(LCVRTCPWriter *w, uint8_t *buf, int size);

/**
 * Pad the compound to a multiple of align bytes (4 = none needed; RFC 3550
 * padding goes on the last packet, with its P bit and count byte).
 * @return the compound size, or a negative AVERROR
 */
int lcv_rtcp_writer_finish(LCVRTCPWriter *w, int align);

/** All writers return the bytes written, or AVERROR(ENOSPC) / AVERROR(EINVAL). */
int lcv_rtcp_write_sr(LCVRTCPWriter *w, uint32_t ssrc, uint64_t ntp, uint32_t rtp_ts,
                      uint32_t packets, uint32_t octets,
                      const LCVRTCPReportBlock *rb, int nb_rb);
int lcv_rtcp_write_rr(LCVRTCPWriter *w, uint32_t ssrc,
                      const LCVRTCPReportBlock *rb, int nb_rb);
/** Items, a chunk per run of items of the same SSRC (31 chunks at most);
 *  an item of type ::LCV_SDES_END (len 0) stands for a chunk without items,
 *  as lcv_rtcp_sdes_next() returns one, even between items of its SSRC; PRIV items take their prefix; no
 *  items writes an SDES without chunks. */
int lcv_rtcp_write_sdes(LCVRTCPWriter *w, const LCVRTCPSdesItem *items, int nb_items);
/** reason: NULL for none, or a NUL-terminated string of at most 255 bytes
 *  (a parsed reason with NUL bytes in it is written up to the first one) */
int lcv_rtcp_write_bye(LCVRTCPWriter *w, const uint32_t *ssrcs, int nb_ssrc,
                       const char *reason);
int lcv_rtcp_write_app(LCVRTCPWriter *w, int subtype, uint32_t ssrc, const char name[4],
                       const uint8_t *payload, int payload_size);
/** Generic NACK for the given lost sequence numbers (any order), packed into PID/BLP pairs. */
int lcv_rtcp_write_nack(LCVRTCPWriter *w, uint32_t ssrc, uint32_t media_ssrc,
                        const uint16_t *seqs, int nb_seqs);
/** Bitrates here and in lcv_rtcp_write_remb() go out as mantissa and exponent:
 *  exact up to 17 (REMB: 18) significant bits, rounded down beyond; UINT64_MAX
 *  (what the parser reports for an overflow) as the largest mantissa with
 *  exponent 63, which parses back to UINT64_MAX. */
int lcv_rtcp_write_tmmb(LCVRTCPWriter *w, int fmt, uint32_t ssrc,
                        const LCVRTCPTmmbItem *items, int nb_items);
int lcv_rtcp_write_rrr(LCVRTCPWriter *w, uint32_t ssrc, uint32_t media_ssrc);
/** TWCC for nb packets from base_seq; items[i].status and .delta used. */
int lcv_rtcp_write_twcc(LCVRTCPWriter *w, uint32_t ssrc, uint32_t media_ssrc,
                        const LCVRTCPTwcc *twcc, const LCVRTCPTwccItem *items);
/** CCFB with the reports of one or more streams: items grouped by ssrc, seq consecutive. */
int lcv_rtcp_write_ccfb(LCVRTCPWriter *w, uint32_t ssrc, uint32_t report_timestamp,
                        const LCVRTCPCcfbItem *items, int nb_items);
int lcv_rtcp_write_pli(LCVRTCPWriter *w, uint32_t ssrc, uint32_t media_ssrc);
int lcv_rtcp_write_sli(LCVRTCPWriter *w, uint32_t ssrc, uint32_t media_ssrc,
                       const LCVRTCPSliItem *items, int nb_items);
int lcv_rtcp_write_rpsi(LCVRTCPWriter *w, uint32_t ssrc, uint32_t media_ssrc,
                        const LCVRTCPRpsi *rpsi);
/** FIR (fmt LCV_PSFB_FIR), TSTR or TSTN */
int lcv_rtcp_write_fir(LCVRTCPWriter *w, int fmt, uint32_t ssrc,
                       const LCVRTCPFirItem *items, int nb_items);
int lcv_rtcp_write_vbcm(LCVRTCPWriter *w, uint32_t ssrc,
                        const LCVRTCPVbcmItem *items, int nb_items);
int lcv_rtcp_write_remb(LCVRTCPWriter *w, uint32_t ssrc, uint64_t bitrate,
                        const uint32_t *ssrcs, int nb_ssrc);
/** An XR packet with the given blocks (data/size/type/type_specific each). */
int lcv_rtcp_write_xr(LCVRTCPWriter *w, uint32_t ssrc,
                      const LCVRTCPXrBlock *blocks, int nb_blocks);
/**
 * @name Typed XR blocks, for lcv_rtcp_write_xr(): each serializes a block's
 * contents into buf (of buf_size bytes, which the block's data then points
 * to) and fills b. They return the content size, or AVERROR(ENOSPC) /
 * AVERROR(EINVAL).
 * @{ */
int lcv_rtcp_xr_make_rrtr(LCVRTCPXrBlock *b, uint8_t *buf, int buf_size, uint64_t ntp);
int lcv_rtcp_xr_make_dlrr(LCVRTCPXrBlock *b, uint8_t *buf, int buf_size,
                          const LCVRTCPDlrrItem *items, int nb_items);
/** LRLE or DRLE (values: 16-bit chunks) or PRT (values: 32-bit receipt times) */
int lcv_rtcp_xr_make_range(LCVRTCPXrBlock *b, uint8_t *buf, int buf_size, int type,
                           const LCVRTCPXrRange *r, const uint32_t *values, int nb_values);
int lcv_rtcp_xr_make_stats(LCVRTCPXrBlock *b, uint8_t *buf, int buf_size,
                           const LCVRTCPXrStats *s);
int lcv_rtcp_xr_make_voip(LCVRTCPXrBlock *b, uint8_t *buf, int buf_size,
                          const LCVRTCPXrVoip *v);
/** @} */

/** Any packet: header, then payload (size a multiple of 4). */
int lcv_rtcp_write_raw(LCVRTCPWriter *w, int type, int fmt,
                       const uint8_t *payload, int payload_size);
/** @} */

/** @} */

#endif /* AVFORMAT_LCVRTCP_H */
