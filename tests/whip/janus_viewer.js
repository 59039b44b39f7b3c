// A viewer of a Janus videoroom made of libwebrtc (npm @roamhq/wrtc, M106):
// it waits for a publisher in ROOM, subscribes JOIN_AT seconds after the
// publisher appears (mid-stream: the publisher's periodic keyframes are
// far apart), decodes what Janus forwards (VP8), and writes as JSON when
// it joined, when its PeerConnection came up, when it decoded its first
// frame, how many frames it decoded and the receiver's getStats(); at the
// publisher's leaving (or TIMEOUT_S).
//
//   NODE_PATH=.../node_modules node janus_viewer.js JANUS_URL ROOM JOIN_AT OUT.json [TIMEOUT_S]
//
// JANUS_URL is Janus's HTTP API (http://127.0.0.1:8088/janus). Every wait
// is bounded by TIMEOUT_S; what Janus answers is checked before use.
'use strict';
const wrtc = require('@roamhq/wrtc');
const { writeAndExit, countingPeerConnection } = require('./wrtc_stats.js');

const [url, roomArg, joinAtArg, out, timeoutArg] = process.argv.slice(2);
const room = parseInt(roomArg, 10);
const joinAt = parseFloat(joinAtArg) * 1000;
const timeout = (parseFloat(timeoutArg) || 60) * 1000;
const t0 = Date.now();
const st = {
  publisher_seen_s: null, join_s: null, offer_s: null, connected_s: null, first_frame_s: null,
  last_frame_s: null,
  frames: 0, width: 0, height: 0, publisher_left_s: null, stats: {}, error: null,
};
let pc = null;
let done = false;
let txn = 0;

function now() { return (Date.now() - t0) / 1000; }
function sleep(ms) { return new Promise((r) => setTimeout(r, ms)); }

async function janus(path, body) {
  body.transaction = 'lcv' + (++txn);
  const r = await fetch(url + path, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
    signal: AbortSignal.timeout(5000),
  });
  const j = await r.json();
  if (j.janus === 'error')
    throw new Error('Janus: ' + JSON.stringify(j.error));
  return j;
}

async function finish() {
  if (done) return;
  done = true;
  await writeAndExit(pc, st, out);
}

// the events of the session (long poll), one at a time, to the handler
async function poll(session, onEvent) {
  while (!done) {
    try {
      const r = await fetch(url + '/' + session + '?maxev=1', { signal: AbortSignal.timeout(40000) });
      const ev = await r.json();
      for (const e of Array.isArray(ev) ? ev : [ev])
        await onEvent(e);
    } catch (e) {
      if (!done) await sleep(100);
    }
  }
}

async function main() {
  const session = (await janus('', { janus: 'create' })).data.id;
  const handle = (await janus('/' + session, { janus: 'attach', plugin: 'janus.plugin.videoroom' })).data.id;
  const hpath = '/' + session + '/' + handle;
  // the publisher (the whip muxer through simple-whip-server)
  let feed = null;
  while (feed === null) {
    const r = await janus(hpath, { janus: 'message', body: { request: 'listparticipants', room } });
    const d = r.plugindata && r.plugindata.data;
    const p = d && Array.isArray(d.participants) ? d.participants.find((x) => x.publisher) : null;
    if (p) feed = p.id;
    else await sleep(50);
  }
  st.publisher_seen_s = now();
  await sleep(joinAt);

  pc = countingPeerConnection(wrtc, st, out, now);
  pc.onconnectionstatechange = () => {
    if (pc.connectionState === 'connected' && st.connected_s === null) st.connected_s = now();
  };
  pc.oniceconnectionstatechange = () => {
    // M106 may report ICE before the DTLS-level state: the later of both counts
    if ((pc.iceConnectionState === 'connected' || pc.iceConnectionState === 'completed') &&
        st.ice_connected_s === undefined) st.ice_connected_s = now();
  };
  poll(session, async (e) => {
    const data = e.plugindata && e.plugindata.data;
    console.log('%s event %s %s', now().toFixed(2), e.janus, data ? JSON.stringify(data).slice(0, 200) : '');
    if (e.jsep && e.jsep.type === 'offer' && !pc.remoteDescription) {
      st.offer_s = now();
      await pc.setRemoteDescription(e.jsep);
      await pc.setLocalDescription(await pc.createAnswer());
      for (let i = 0; i < 500 && pc.iceGatheringState !== 'complete'; i++) await sleep(10);
      await janus(hpath, {
        janus: 'message', body: { request: 'start' },
        jsep: { type: 'answer', sdp: pc.localDescription.sdp },
      });
    } else if (data && (data.unpublished !== undefined || data.leaving !== undefined)) {
      st.publisher_left_s = now();
      setTimeout(finish, 200);
    } else if (e.janus === 'hangup') {
      st.publisher_left_s = st.publisher_left_s || now();
      setTimeout(finish, 200);
    }
  });
  st.join_s = now();
  await janus(hpath, {
    janus: 'message', body: { request: 'join', ptype: 'subscriber', room, streams: [{ feed }] },
  });
  // the publisher's leaving (its DELETE, or its PeerConnection gone): no
  // publisher in the room any more, asked every 250 ms
  for (;;) {
    await sleep(250);
    const r = await janus(hpath, { janus: 'message', body: { request: 'listparticipants', room } });
    const d = r.plugindata && r.plugindata.data;
    if (d && Array.isArray(d.participants) && !d.participants.some((x) => x.publisher && x.id === feed)) {
      st.publisher_left_s = st.publisher_left_s || now();
      await sleep(200);
      await finish();
      return;
    }
  }
}

main().catch((e) => { st.error = String(e); console.error(e); finish(); });
setTimeout(finish, timeout);
console.log('ready');
