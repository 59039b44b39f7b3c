# How many FATE tests each target runs (IGNOREd ones not counted), sourced
# by tests/check.sh and tests/check-asan.sh. A test whose program or
# fragment fails to build prints no TEST line and would drop out unseen, so
# the counts are pinned: change them with the tests, after checking the new
# list (make -C build/ffmpeg fate-list).
#   n_toi420  the toi420 references (tests/fate/toi420.mak)
#   n_ext     fate-ext: those, the reference programs, the buffer pool and
#             the RTP unit tests (tests/fate/*.mak)
#   n_ext_whip  fate-ext where the whip muxer is built
#   n_all     FFmpeg's sample-free suite with ours, default configure profile
# Set series (9.0, 7.1) before sourcing: FFmpeg's own suite differs.
n_toi420=72
n_ext=82
# the default profile on 9.0 (GnuTLS, the whip muxer) adds fate-whip-ext
n_ext_whip=$((n_ext + 1))
case ${series:-9.0} in
7.1) n_all=1698 ;;
*)   n_all=2974 ;;
esac
