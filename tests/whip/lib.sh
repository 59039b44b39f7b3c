# Helpers of the whip tests and the whip bench (sourced after
# tests/rtp/lib.sh): libwebrtc for Node, Debian's simple-whip-server, and
# Janus in the peer's namespace. Expects $build, $work, $nsb, $peer_ip,
# $hport and $dur (s the peer's programs may run, plus 60).
# libwebrtc for Node, into BUILD/tests/node on first use
need_wrtc() {
    command -v node > /dev/null || die "no Node.js for libwebrtc (npm @roamhq/wrtc)"
    nodedir=$build/tests/node
    if [ ! -e "$nodedir/node_modules/@roamhq/wrtc/package.json" ]; then
        mkdir -p "$nodedir"
        npm install --no-audit --no-fund --prefix "$nodedir" @roamhq/wrtc@0.10.0 > "$work/npm.log" 2>&1 ||
            die "npm install @roamhq/wrtc failed: $(tail -3 "$work/npm.log")"
    fi
}

# Debian's simple-whip-server (Meetecho's WHIP front end to Janus), into
# BUILD/tests/simple-whip-server on first use: its package depends on
# Debian's nodejs, which a machine with another Node cannot install, so its
# files come out of the .deb (apt-get download) and its six dependencies
# from npm
need_sws() {
    swsdir=$build/tests/simple-whip-server
    [ -e "$swsdir/node_modules/express/package.json" ] && [ -e "$swsdir/src/server.js" ] && return 0
    rm -rf "$swsdir" "$work/deb"
    mkdir -p "$swsdir" "$work/deb"
    (cd "$work/deb" && apt-get download simple-whip-server) > "$work/apt.log" 2>&1 ||
        die "apt-get download simple-whip-server failed: $(tail -3 "$work/apt.log")"
    dpkg -x "$work"/deb/simple-whip-server_*.deb "$work/deb/x" ||
        die "dpkg -x of simple-whip-server failed"
    cp -r "$work/deb/x/usr/share/simple-whip-server/src" "$swsdir/"
    npm install --no-audit --no-fund --prefix "$swsdir" express@4 cors colors@1.4.0 debug websocket async \
        > "$work/npm.log" 2>&1 || die "npm install for simple-whip-server failed: $(tail -3 "$work/npm.log")"
}

# Janus in the peer's namespace, with a configuration of the test's own
# (the videoroom plugin; the HTTP and WebSocket APIs on that namespace's
# ports 8088 and 8188; a DTLS certificate of Janus's own making): room 1234
# takes VP8, VP9 or H.264, caps a publisher at 4 Mbit/s (REMB) and sends no
# periodic FIR. simple-whip-server beside it on the peer's address takes
# the WHIP offer for endpoint "lcv" into that room. Sets whip_url.
start_janus() {
    local jd=$work/janus jlib
    # the package's plugin folder (/usr/lib/<multiarch>/janus)
    jlib=$(dpkg -L janus 2>/dev/null | sed -n 's|/plugins/libjanus_videoroom.so$||p' | head -n 1)
    [ -n "$jlib" ] && [ -e "$jlib/plugins/libjanus_videoroom.so" ] || die "no Janus videoroom plugin (package janus)"
    mkdir -p "$jd/plugins" "$jd/transports" "$jd/none"
    ln -s "$jlib/plugins/libjanus_videoroom.so" "$jd/plugins/"
    ln -s "$jlib/transports/libjanus_http.so" "$jlib/transports/libjanus_websockets.so" "$jd/transports/"
    cat > "$jd/janus.jcfg" <<EOF
general: {
    configs_folder = "$jd"
    plugins_folder = "$jd/plugins"
    transports_folder = "$jd/transports"
    events_folder = "$jd/none"
    loggers_folder = "$jd/none"
    debug_level = 4
}
media: {
    rtp_port_range = "20000-40000"
}
EOF
    cat > "$jd/janus.plugin.videoroom.jcfg" <<EOF
general: {
}
room-1234: {
    description = "lcv"
    publishers = 2
    bitrate = 4000000
    fir_freq = 0
    videocodec = "vp8,vp9,h264"
    audiocodec = "opus"
}
EOF
    cat > "$jd/janus.transport.http.jcfg" <<EOF
general: {
    json = "plain"
    base_path = "/janus"
    http = true
    port = 8088
    https = false
}
admin: {
    admin_http = false
}
EOF
    cat > "$jd/janus.transport.websockets.jcfg" <<EOF
general: {
    json = "plain"
    ws = true
    ws_port = 8188
    wss = false
}
admin: {
    admin_ws = false
}
EOF
    # -k: Janus can hang in its shutdown after SIGTERM ("Stopping server,
    # please wait..." and no more, seen once in ~100 runs); the EXIT trap's
    # wait would then never end
    ip netns exec "$nsb" timeout -k 5 $((dur + 60)) janus -C "$jd/janus.jcfg" -F "$jd" -i "$peer_ip" -o -L "$work/janus.log" \
        > /dev/null 2>&1 &
    janus_pid=$!
    # listening on 8188 (0x1FFC) and 8088 (0x1F98): 10 s at most
    for _ in $(seq 100); do
        ip netns exec "$nsb" grep -q ":1FFC 00000000:0000 0A\|:1FFC 00000000000000000000000000000000:0000 0A" \
            /proc/net/tcp /proc/net/tcp6 2>/dev/null &&
            ip netns exec "$nsb" grep -q ":1F98 00000000:0000 0A\|:1F98 00000000000000000000000000000000:0000 0A" \
                /proc/net/tcp /proc/net/tcp6 2>/dev/null && break
        sleep 0.1
    done
    kill -0 "$janus_pid" 2>/dev/null || die "Janus did not start: $(tail -5 "$work/janus.log")"
    mkdir -p "$work/sws"
    cp "$swsdir/src/server.js" "$swsdir/src/whip-janus.js" "$work/sws/"
    cat > "$work/sws/config.js" <<EOF
module.exports = { janus: { address: 'ws://127.0.0.1:8188' }, port: $hport, rest: '/whip',
                   allowTrickle: true, strictETags: false, iceServers: [] };
EOF
    ip netns exec "$nsb" env NODE_PATH="$swsdir/node_modules" DEBUG="whip:info,whip:warn,whip:error,janus:error,janus:warn,janus:info" DEBUG_COLORS=0 timeout -k 5 $((dur + 60)) \
        node "$work/sws/server.js" > "$work/sws.log" 2>&1 &
    for _ in $(seq 100); do grep -q "Janus OK" "$work/sws.log" && break; sleep 0.1; done
    grep -q "Janus OK" "$work/sws.log" || die "simple-whip-server did not start: $(tail -5 "$work/sws.log")"
    ip netns exec "$nsb" curl -sf -X POST -H 'Content-Type: application/json' \
        -d '{"id":"lcv","room":1234,"label":"ffmpeg"}' "http://127.0.0.1:$hport/whip/create" > /dev/null ||
        die "simple-whip-server refused the endpoint"
    whip_url=http://$peer_ip:$hport/whip/endpoint/lcv
}
