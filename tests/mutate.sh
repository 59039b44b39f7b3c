#!/usr/bin/env bash
# The mutation exercise: break one toi420 kernel, one RTCP writer, the
# buffer pool's reference recycling, or one piece of the RTP transport (the
# pacer, the history and its budget, the NACK generator and the receiver's
# RTCP budget, the receiver's added delay end to end, congestion control,
# the keyframe path, whose feedback counts, the receiver's reorder queue,
# the sender's hooks for a second muxer) at a time, rebuild, run the tests
# that guard that code, and say which of them failed. Every mutation must make at
# least one test fail; the script exits 1 if one survives. Not part of make
# check (each mutation is a rebuild); run it after changing the tests.
#   tests/mutate.sh [toi420|rtcp|pool|pacer|hist|nack|delay|cc|ccstart|ccdefault|kf|peer|rxq|sendapi|GROUP/NAME ...]
#   (default: all; kf runs live network tests on 127.0.0.1, and needs the
#   test tools: make check builds them)
# Needs a configured and built tree (./configure && make ffmpeg). The files
# are restored after each mutation, and the tree is rebuilt at the end.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
ffb=$top/build/ffmpeg
src=$top/build/src
shim=$top/build/tests/malloc_count.so
log=$top/build/tests/mutate
mkdir -p "$log"
groups=${*:-toi420 rtcp pool pacer hist nack delay cc ccstart ccdefault kf peer rxq sendapi}
survived=0 total=0 report=()

# mutate GROUP NAME FILE OLD NEW: replace the one occurrence of OLD in FILE
mutate() {
    local group=$1 name=$2 file=$3 old=$4 new=$5
    case " $groups " in *" $group "*|*" $group/$name "*) ;; *) return ;; esac
    total=$((total + 1))
    cp "$file" "$log/orig"
    if ! python3 - "$file" "$old" "$new" <<'EOF'
import sys
path, old, new = sys.argv[1:]
s = open(path).read()
if s.count(old) != 1:
    sys.exit("%s: %d occurrences of %r" % (path, s.count(old), old))
open(path, "w").write(s.replace(old, new))
EOF
    then
        report+=("$group/$name: mutation not applied (the code changed?)")
        survived=$((survived + 1))
        return
    fi
    local failed=()
    if ! make -C "$top" -s ffmpeg > "$log/$name.build.log" 2>&1 ||
       ! make -C "$ffb" -s -j"$(nproc)" libavfilter/tests/toi420 libavformat/tests/lcvrtcp \
            libavutil/tests/bufferpool tests/checkasm/checkasm libavformat/tests/rtppacer \
            libavformat/tests/rtphist libavformat/tests/rtpnack libavformat/tests/rtpcc \
            libavformat/tests/rtppeer libavformat/tests/rtpjoin libavformat/tests/rtpdec_ext \
            >> "$log/$name.build.log" 2>&1 ||
       ! make -C "$top" -s "$top/build/tests/transport_api" >> "$log/$name.build.log" 2>&1; then
        failed+=("build")
    else
        case $group in
        toi420) run_toi420 ;;
        rtcp)   run_rtcp ;;
        pool)   run_pool ;;
        pacer)  run_pacer ;;
        hist)   t rtphist-unit "$ffb/libavformat/tests/rtphist" ;;
        nack)   t rtpnack-unit "$ffb/libavformat/tests/rtpnack" ;;
        delay)  t rtpnack-unit "$ffb/libavformat/tests/rtpnack"
                t lossy-link-delay bash "$top/tests/rtp/lossy.sh" "$top/build" link-ours ;;
        cc)     t rtpcc-unit "$ffb/libavformat/tests/rtpcc" ;;
        ccstart) t rtpcc-unit "$ffb/libavformat/tests/rtpcc"
                t cc-start bash "$top/tests/rtp/cc.sh" "$top/build" start ;;
        ccdefault) t rtpcc-unit "$ffb/libavformat/tests/rtpcc"
                t cc-wire bash "$top/tests/rtp/cc.sh" "$top/build" wire
                t pacing-bottleneck bash "$top/tests/rtp/pacing.sh" "$top/build" bottleneck
                t cc-start bash "$top/tests/rtp/cc.sh" "$top/build" start ;;
        kf)     run_kf ;;
        peer)   t rtppeer-unit "$ffb/libavformat/tests/rtppeer" ;;
        rxq)    t rtpdec-ext-unit "$ffb/libavformat/tests/rtpdec_ext"
                t rtpnack-unit "$ffb/libavformat/tests/rtpnack" ;;
        sendapi) run_sendapi ;;
        esac
    fi
    cp "$log/orig" "$file"
    if [ ${#failed[@]} = 0 ]; then
        survived=$((survived + 1))
        report+=("$group/$name: SURVIVED (no test failed)")
    else
        report+=("$group/$name: caught by ${failed[*]}")
    fi
    echo "${report[-1]}"
}

# t NAME CMD...: one guarding test; a failure is recorded
# t NAME CMD...: one test of the group; MUTATE_FIRST=1 skips the rest of
# the group once one has failed (the groups list their tests cheapest first)
t() {
    local name=$1; shift
    [ -n "${MUTATE_FIRST:-}" ] && [ ${#failed[@]} -gt 0 ] && return
    "$@" > "$log/test.$name.log" 2>&1 || failed+=("$name")
}

run_toi420() {
    t fate-toi420 make -C "$ffb" -k -j"$(nproc)" fate-toi420
    t fate-toi420-cpuflags0 make -C "$ffb" -k -j"$(nproc)" fate-toi420 CPUFLAGS=0
    t fate-toi420-ssse3 make -C "$ffb" -k -j"$(nproc)" fate-toi420 CPUFLAGS=ssse3
    t toi420-unit "$ffb/libavfilter/tests/toi420"
    t checkasm "$ffb/tests/checkasm/checkasm" --test=vf_toi420
}

run_rtcp() {
    t lcvrtcp-unit "$ffb/libavformat/tests/lcvrtcp"
    t rebuild-corpus "$ffb/libavformat/tests/lcvrtcp" rebuild "$top"/tests/fuzz/regressions/[!R]*
}

run_pacer() {
    t rtppacer-unit "$ffb/libavformat/tests/rtppacer"
}

run_sendapi() {
    t transport-api-gso "$top/build/tests/transport_api" gso 1
    t transport-api-single "$top/build/tests/transport_api" single 0
    t transport-api-fail "$top/build/tests/transport_api" gso 1 fail
}

# the keyframe path end to end: PLIs to a live x264 sender, IDRs counted in
# the capture; a late receiver's own requests
run_kf() {
    t rtpjoin-unit "$ffb/libavformat/tests/rtpjoin"
    t feedback-kfinterval bash "$top/tests/rtp/feedback.sh" "$top/build" kfinterval
    t feedback-keyframe bash "$top/tests/rtp/feedback.sh" "$top/build" keyframe
}

run_pool() {
    t buffer-unit "$ffb/libavutil/tests/bufferpool"
    t alloc-api env LD_PRELOAD="$shim" "$ffb/libavfilter/tests/toi420" alloc 100
    t alloc-cli-rgba env CHECK_ZERO=1 "$top/tests/alloc/cli-allocs.sh" "$ffb/ffmpeg" "$shim" 5000 toi420 rgba
    t fate-toi420 make -C "$ffb" -k -j"$(nproc)" fate-toi420
}

[ -x "$ffb/ffmpeg" ] || { echo "build first: ./configure && make ffmpeg" >&2; exit 1; }
make -C "$top" -s "$shim" > /dev/null

# ---- toi420 kernels: C (vf_toi420_init.h, also built for AVX2 in
# x86/vf_toi420_c_avx2.c) and x86 assembly (SSE2, SSSE3, AVX2)
C=$top/libavfilter-ext/vf_toi420_init.h
A=$top/libavfilter-ext/x86/vf_toi420.asm
mutate toi420 c-rgb-luma-truncates "$C" \
    'y0[x] = toi420_clip8((yr * r0[x] + yg * g0[x] + yb * b0[x] + y_add) >> 15);' \
    'y0[x] = toi420_clip8((yr * r0[x] + yg * g0[x] + yb * b0[x] + y_add - (1 << 14)) >> 15);'
mutate toi420 c-rgb-chroma-off-by-one "$C" \
    'v[x] = toi420_clip8((vr * sr + vg * sg + vb * sb + c_add) >> 17);' \
    'v[x] = toi420_clip8((vr * sr + vg * sg + vb * sb + c_add + (1 << 16)) >> 17);'
mutate toi420 c-rgb-odd-width-edge "$C" \
    'r1[n] = r1[n - 1]; g1[n] = g1[n - 1]; b1[n] = b1[n - 1];' \
    'r1[n] = r1[n - 1]; g1[n] = g1[n - 1]; b1[n] = 0;'
mutate toi420 c-h2v2-rounding "$C" \
    'src1[2 * x] + src1[2 * x + 1] + 2) >> 2;' \
    'src1[2 * x] + src1[2 * x + 1] + 1) >> 2;'
mutate toi420 c-h2v2-odd-tail "$C" \
    'dst[pairs] = (src0[width - 1] + src1[width - 1] + 1) >> 1;' \
    'dst[pairs] = (src0[width - 1] + src1[width - 1]) >> 1;'
mutate toi420 c-v2-rounding "$C" \
    'dst[x] = (src0[x] + src1[x] + 1) >> 1;' \
    'dst[x] = (src0[x] + src1[x]) >> 1;'
mutate toi420 c-nv-swap "$C" \
    'v[x] = src[2 * x + 1];' \
    'v[x] = src[2 * x];'
mutate toi420 c-packed-cr-rounding "$C" \
    'v[x] = (src0[4 * x + co + 2] + src1[4 * x + co + 2] + 1) >> 1;' \
    'v[x] = (src0[4 * x + co + 2] + src1[4 * x + co + 2]) >> 1;'
mutate toi420 asm-h2v2-rounding "$A" \
    $'    paddw          m0, m5\n    paddw          m1, m5\n' \
    $'    paddw          m0, m5\n'
mutate toi420 asm-v2-max "$A" \
    $'    movu           m1, [s1q]\n    pavgb          m0, m1\n' \
    $'    movu           m1, [s1q]\n    pmaxub         m0, m1\n'
mutate toi420 asm-avx2-rgb-luma-rounding "$A" \
    $'    paddd          m8, m15\n    paddd          m9, m15\n    psrad          m8, 15\n' \
    $'    paddd          m8, m15\n    psrad          m8, 15\n'
mutate toi420 asm-avx2-rgb-chroma-shift "$A" \
    $'    phaddd         %2, m10          ; pairs 0 2 4 6 | 1 3 5 7\n    paddd          %2, [cq + 128]\n    psrad          %2, 17\n' \
    $'    phaddd         %2, m10          ; pairs 0 2 4 6 | 1 3 5 7\n    paddd          %2, [cq + 128]\n    psrad          %2, 16\n'
mutate toi420 asm-ssse3-packed-max "$A" \
    $'    punpckhqdq     m2, m3\n    pavgb          m0, m2\n    pshufb         m0, m7           ; Cb 0-7 | Cr 0-7' \
    $'    punpckhqdq     m2, m3\n    pmaxub         m0, m2\n    pshufb         m0, m7           ; Cb 0-7 | Cr 0-7'
mutate toi420 asm-avx2-packed-rows "$A" \
    'vperm2i128     m2, m2, m3, 0x31 ; CbCr 0-15, row 1' \
    'vperm2i128     m2, m0, m1, 0x31 ; CbCr 0-15, row 1'

# ---- RTCP writers (libavformat-ext/lcvrtcp_write.c)
W=$top/libavformat-ext/lcvrtcp_write.c
mutate rtcp sr-octets "$W" 'AV_WB32(p + 20, octets);' 'AV_WB32(p + 20, packets);'
mutate rtcp report-lost-24bit "$W" 'AV_WB24(p + 5,  rb[i].cumulative_lost & 0xffffff);' \
    'AV_WB24(p + 5,  rb[i].cumulative_lost & 0x7fffff);'
mutate rtcp nack-blp-shift "$W" 'blp |= 1 << (d - 1);' 'blp |= 1 << d;'
mutate rtcp tmmb-overhead "$W" '(uint32_t)m << 9 | items[i].overhead);' '(uint32_t)m << 9 | (items[i].overhead & 0xff));'
mutate rtcp twcc-2bit-vector "$W" 'chunk |= items[i + k].status << (12 - 2 * k);' 'chunk |= items[i + k].status << (13 - 2 * k);'
mutate rtcp twcc-fb-count "$W" 'p[7] = twcc->fb_count;' 'p[7] = 0;'
mutate rtcp ccfb-ecn "$W" '!!it->received << 15 | it->ecn << 13 | it->ato' '!!it->received << 15 | it->ecn << 12 | it->ato'
mutate rtcp sli-picture "$W" '(items[i].picture_id & 0x3f));' '(items[i].picture_id & 0x1f));'
mutate rtcp rpsi-padding "$W" 'p[0] = (fci - 2) * 8 - rpsi->nb_bits;' 'p[0] = 0;'
mutate rtcp fir-seq "$W" '(uint32_t)items[i].seq << 24 |' '(uint32_t)items[i].seq << 16 |'
mutate rtcp vbcm-length "$W" 'AV_WB16(p + 6, items[i].len);' 'AV_WB16(p + 6, (items[i].len + 3) & ~3);'
mutate rtcp remb-count "$W" 'p[4] = nb_ssrc;' 'p[4] = nb_ssrc ? nb_ssrc - 1 : 0;'
mutate rtcp finish-padding-count "$W" 'w->buf[w->pos + pad - 1] = pad;' 'w->buf[w->pos + pad - 1] = pad - 1;'
mutate rtcp sdes-end-chunk "$W" 'items[i].type == LCV_SDES_END || items[i - 1].type == LCV_SDES_END;' \
    'items[i].type == LCV_SDES_END;'
mutate rtcp app-name "$W" 'memcpy(p + 4, name, 4);' 'memcpy(p + 4, name, 3);'

# ---- the buffer pool's reference recycling (patches/0001, in build/src)
B=$src/libavutil/buffer.c
mutate pool get-allocates-ref "$B" '        ret = &buf->ref;' \
    '        ret = av_mallocz(sizeof(*ret)); if (!ret) { ff_mutex_unlock(&pool->mutex); return NULL; }'
mutate pool pool-ref-not-recognised "$B" '    return ref == &entry->ref;' '    return 0;'
mutate pool stale-size "$B" '        ret->size   = pool->size;' '        ret->size   = 0;'

# ---- the pacer (logic only: its FATE test drives it with a made-up clock)
P=$top/libavformat-ext/rtppacer.c
mutate pacer budget "$P" 'b->resent + b->bytes + p->ring[p->ring_start].size <= b->limit' \
    'b->resent + b->bytes + p->ring[p->ring_start].size <= b->limit + 1200'
mutate pacer due-time "$P" 'due = FFMIN(due, now + p->urgent_within);' 'due = FFMIN(due, now + 2 * p->urgent_within);'
mutate pacer factor "$P" 'rate  = media * p->cfg.factor;' 'rate  = media;'
mutate pacer forced-drain "$P" '        if (need > rate) {' '        if (0) {'
mutate pacer resend-credit "$P" 'p->t_free - now > burst_time' 'p->t_free - now > 2 * burst_time'
mutate pacer link-floor "$P" 'rate = FFMAX(p->link_rate * p->cfg.factor, media);' 'rate = p->link_rate * p->cfg.factor;'
mutate pacer link-factor "$P" 'rate = FFMAX(p->link_rate * p->cfg.factor, media);' 'rate = FFMAX(p->link_rate, media);'
mutate pacer resends-first "$P" $'    if (b->resent && b->resent + size > p->cfg.burst)\n        return 0;' \
    $'    if (b->resent + size > p->cfg.burst / 2)\n        return 0;'
mutate pacer live-detection "$P" 'p->media_time <= 2 * elapsed + RATE_WINDOW' 'p->media_time <= 3 * elapsed + RATE_WINDOW'
mutate pacer ahead "$P" 'b->depart = ahead ? FFMAX(p->t_free, now) : 0;' 'b->depart = 0;'
mutate pacer resend-queue-bound "$P" 'if (p->prio_count == p->prio_slots || len > p->prio_slot || len < 0)' \
    'if (p->prio_count == p->prio_slots + 1 || len > p->prio_slot || len < 0)'

# the media rate (rtprate.c), read by the pacer and the resend budget
R=$top/libavformat-ext/rtprate.c
mutate pacer rate-min-span "$R" 'span = FFMAX(now - o->time, MIN_SPAN);' 'span = now - o->time + 1;'
mutate pacer rate-window "$R" 'now - r->win[r->start].time > FF_RTP_RATE_WINDOW' 'now - r->win[r->start].time > 2 * FF_RTP_RATE_WINDOW'
mutate pacer rate-media-span "$R" \
    'span = FFMAX(span, FFMIN(n->media_time - o->media_time, 10 * FF_RTP_RATE_WINDOW));' 'span = span;'

# ---- the packet history: answers, RTX, the resend budget
H=$top/libavformat-ext/rtphist.c
mutate hist budget-floor "$H" 'FF_RTP_HIST_MIN_BURST * (h->cfg.max_packet + 2)' '4 * (h->cfg.max_packet + 2)'
mutate hist refill-rate "$H" 'h->tokens + rate * (now - h->tokens_time) / 1e6' 'h->tokens + 2 * rate * (now - h->tokens_time) / 1e6'
mutate hist refill-datagrams "$H" 'h->ptokens + rate / mean * (now' 'h->ptokens + 2 * rate / mean * (now'
mutate hist bank-quarter-second "$H" 'cap  = FFMAX(rate / 4,' 'cap  = FFMAX(rate / 2,'
mutate hist early-repeat "$H" 'if (e->resent && now - e->resent < min_rtt)' 'if (0)'
mutate hist rtx-osn "$H" 'AV_WB16(p + hdr, e->seq);' 'AV_WB16(p + hdr, e->seq + 1);'
mutate hist rtx-after-extension "$H" 'hdr = FFMAX(ff_rtp_header_size(o, e->size), 12);' 'hdr = 12;'
mutate hist contiguity "$H" 'if (h->count && newest(h)->seq != (uint16_t)(seq - 1))' 'if (0)'
mutate hist media-age "$H" '(int32_t)(ts - h->e[h->start].ts) > h->media_limit' '0'
mutate hist ahead "$H" 'if (h->count && (int16_t)(seq - newest(h)->seq) > 0)' 'if (0)'
mutate hist oversized-kept "$H" 'if (sizes[i] < 12 || sizes[i] > h->cfg.max_packet)' 'if (sizes[i] < 12)'

# ---- the receiver's NACK generator
N=$top/libavformat-ext/rtpnack.c
mutate nack reorder-allowance "$N" 'int64_t due = m.retries ? m.sent + retry : m.detected + FF_RTP_NACK_REORDER;' \
    'int64_t due = m.retries ? m.sent + retry : m.detected;'
mutate nack karn "$N" $'                if (m->retries == 1)\n' $'                if (m->retries)\n'
mutate nack retry-rttvar "$N" 'return g->srtt + FFMAX(4 * g->rttvar, 5000);' 'return g->srtt + FFMAX(2 * g->rttvar, 5000);'
mutate nack no-rtt-wait "$N" 'FFMIN(g->max_wait, g->st.lost ? NO_RTT_WAIT : FIRST_WAIT)' 'FFMIN(g->max_wait, FIRST_WAIT)'
mutate nack give-up-after-retries "$N" 'if (m->retries >= g->max_retries)' 'if (m->retries > g->max_retries)'
mutate nack multi-packet-gap "$N" 'for (int64_t q = v - gap; q < v; q++) {' 'for (int64_t q = v - 1; q < v; q++) {'
mutate nack restart-threshold "$N" 'if (gap > FF_RTP_NACK_MAX_GAP) {' 'if (gap > 2 * FF_RTP_NACK_MAX_GAP) {'
mutate nack bounded "$N" 'if (g->nb_miss + gap > FF_RTP_NACK_MAX_MISSING) {' 'if (0) {'
mutate nack duplicate "$N" $'            return g->nack;\n' $'            return 0;\n'
mutate nack late "$N" 'g->st.late++;' 'g->st.duplicates++;'
mutate nack skip "$N" 'give_up(g, find(g, unwrap(g, seq)));' 'give_up(g, 0);'
mutate nack wait-end "$N" 'end = FFMAX(end, give_up_at(g, &g->miss[i], retry));' 'end = FFMAX(end, g->miss[i].detected);'

# the delay the receiver adds to a frame it repairs, end to end (lossy.sh
# link: p95 and max of each frame's hand-on less its last packet's arrival)
mutate delay first-nack-late "$N" 'int64_t due = m.retries ? m.sent + retry : m.detected + FF_RTP_NACK_REORDER;' \
    'int64_t due = m.retries ? m.sent + retry : m.detected + 30 * FF_RTP_NACK_REORDER;'
mutate delay retry-slow "$N" 'return g->srtt + FFMAX(4 * g->rttvar, 5000);' 'return 4 * (g->srtt + FFMAX(4 * g->rttvar, 5000));'

# the receiver's plausible gaps, its RTCP budget, the hold of a jump far ahead
mutate nack plausible-floor "$N" 'plausible = FFMAX(plausible, FF_RTP_NACK_MIN_PLAUSIBLE);' 'plausible = plausible;'
mutate nack rtcp-share "$N" 'FF_RTP_RTCP_SHARE * FFMAX(b->prev_bytes, b->win_bytes)' '0.2 * FFMAX(b->prev_bytes, b->win_bytes)'
mutate nack rtcp-depth "$N" 'depth = FFMAX(rate / 4, FF_RTP_RTCP_DEPTH);' 'depth = FFMAX(rate, FF_RTP_RTCP_DEPTH);'
mutate nack jump-wait "$N" 'w = 2 * (int64_t)run * 1000000 / rate;' 'w = (int64_t)run * 1000000 / rate;'

# ---- congestion control (rtpcc.c, on the unit test's simulated links)
C2=$top/libavformat-ext/rtpcc.c
mutate cc remb-expiry "$C2" 'if (now - cc->remb_time > FF_RTPCC_REMB_TIMEOUT) {' 'if (0) {'
mutate cc remb-halving "$C2" 'cc->remb_cap = FFMAX(cc->remb, cc->remb_cap * exp2(' 'cc->remb_cap = FFMAX(cc->remb, 0 * exp2('
mutate cc beta "$C2" '#define BETA            0.85' '#define BETA            0.97'
mutate cc loss-high "$C2" '#define LOSS_HIGH       0.10' '#define LOSS_HIGH       0.30'
mutate cc overuse-time "$C2" '#define OVERUSE_TIME    10.0' '#define OVERUSE_TIME    200.0'
mutate cc increase "$C2" '#define MULT_INCREASE   1.12' '#define MULT_INCREASE   1.00'
mutate cc additive-one "$C2" '#define ADD_PACKETS     4.0' '#define ADD_PACKETS     1.0'
mutate cc no-probe "$C2" '#define PROBE_RESPONSES 8.0' '#define PROBE_RESPONSES 1000.0'
mutate cc no-queue-cut "$C2" '            double r = FFMAX(BETA - q, 0.5) * cc->acked;' '            double r = BETA * cc->acked;'
mutate cc ack-window "$C2" '#define ACK_WINDOW      300000' '#define ACK_WINDOW      2000000'
# the start-up (start_bitrate): the unit test's simulated link, and a live
# encoder through the relay's 3 Mbit/s from the first packet (cc.sh start)
mutate ccstart no-startup "$C2" 'cc->startup   = cc->rate < cc->cfg.max_bitrate;' 'cc->startup   = 0;'
mutate ccstart no-delay-exit "$C2" '           cc->smoothed - cc->min_smoothed > STARTUP_EXIT_DELAY;' \
    '           0;'
# on by default (cc auto): the muxer's choice, the wait for transport
# feedback, what the pacer goes by (rtpfb.c)
E=$top/libavformat-ext/rtpenc_ext.c
F2=$top/libavformat-ext/rtpfb.c
mutate ccdefault auto-off "$E" '        e->cc = e->feedback;' '        e->cc = 0;'
mutate ccdefault auto-audio "$E" '        e->cc = 0;
    }
    if (e->cc_auto &&' '    }
    if (e->cc_auto &&'
mutate ccdefault fallback-held "$C2" '        cc->rate     = cc->cfg.max_bitrate;' ''
mutate ccdefault no-restart "$C2" $'        cc->rate    = av_clip64(cc->cfg.start_bitrate, cc->cfg.min_bitrate, cc->cfg.max_bitrate);\n' ''
mutate ccdefault pace-by-media "$F2" '    return atomic_load(&fb->followed) && ff_rtpcc_estimating(fb->cc) ? target : 0;' '    return 0;'
mutate ccdefault pace-unfollowed "$F2" '    return atomic_load(&fb->followed) && ff_rtpcc_estimating(fb->cc) ? target : 0;' '    return target;'

# ---- the keyframe path: the sender's request interval, the late receiver's requests
F=$top/libavformat-ext/rtpfb.c
J=$top/libavformat-ext/rtpjoin.c
mutate kf min-interval "$F" 'if (fb->last_kf_request && now - fb->last_kf_request < fb->cfg.kf_min_interval)' 'if (0)'
mutate kf join-needs-sets "$J" 'if (irap && (j->seen & j->need) == j->need) {' 'if (irap) {'
mutate kf join-interval-cap "$J" 'j->interval = FFMIN(2 * j->interval, FF_RTP_JOIN_MAX);' 'j->interval = 2 * j->interval;'
mutate kf join-first-wait "$J" 'j->next     = now + FF_RTP_JOIN_FIRST;' 'j->next     = now;'

# ---- whose feedback counts (rtppeer.c): the sender's rtcp_from, the receiver's lock
E=$top/libavformat-ext/rtppeer.c
mutate peer ports-ignored "$E" 'return v4x && v4y && x4 == y4 && (!port || xp == yp);' 'return v4x && v4y && x4 == y4;'
mutate peer rtcp-relocks "$E" 'if (!rtcp && now - l->last >= FF_RTP_PEER_RELOCK) {' 'if (now - l->last >= FF_RTP_PEER_RELOCK) {'
mutate peer auto-any "$E" 'return ff_rtp_peer_is_multicast(dest) ? FF_RTP_PEER_ANY : FF_RTP_PEER_HOST;' 'return FF_RTP_PEER_ANY;'
mutate peer v4-mapped "$E" $'        if (IN6_IS_ADDR_V4MAPPED(&s->sin6_addr)) {
' $'        if (0) {
'

# ---- the receiver's reorder queue (FFmpeg's rtpdec.c as patched, in build/src)
Q=$src/libavformat/rtpdec.c
mutate rxq no-strays "$Q" 's->in_order - s->queue->in_order >= RTP_RESYNC_RUN) {' 's->in_order - s->queue->in_order >= 100000) {'
mutate rxq no-resync "$Q" 'if (s->late_run >= RTP_RESYNC_RUN) {' 'if (0) {'
mutate rxq strays-any-gap "$Q" '(uint16_t)(s->queue->seq - s->seq) > RTP_STRAY_GAP &&' '1 &&'

# ---- the sender's hooks for a second muxer (rtpsend.c)
S=$top/libavformat-ext/rtpsend_io.c
T=$top/libavformat-ext/rtpsend_thread.c
mutate sendapi no-protect-batch "$S" $'    if (s->cfg.protect)\n        protect_batch(s, &d, b);\n' ''
mutate sendapi no-incoming "$T" '        if (s->cfg.incoming &&' '        if (0 && s->cfg.incoming &&'
mutate sendapi protect-failure-sent "$S" '            protect_failed(s, d, ret < 0 ? ret : AVERROR_BUG, "RTP");
            continue;' '            protect_failed(s, d, ret < 0 ? ret : AVERROR_BUG, "RTP");
            ret = b->sizes[i];'

echo
printf '%s\n' "${report[@]}"
echo "$((total - survived)) of $total mutations caught"
echo "rebuilding the unmutated tree"
make -C "$top" -s ffmpeg > "$log/restore.log" 2>&1 &&
    make -C "$ffb" -s -j"$(nproc)" libavfilter/tests/toi420 libavformat/tests/lcvrtcp \
        libavutil/tests/bufferpool tests/checkasm/checkasm >> "$log/restore.log" 2>&1 ||
    echo "restore build failed: $log/restore.log"
[ "$survived" = 0 ]
