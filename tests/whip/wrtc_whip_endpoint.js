// A WHIP endpoint made of libwebrtc itself (npm @roamhq/wrtc, M106), an
// independent WebRTC peer for the whip muxer's tests: it takes the offer by
// HTTP POST, answers, decodes what it receives (VP8), and writes what it
// saw, with the receiver's getStats(), as JSON when the publisher sends its
// DELETE (or at --timeout).
//
//   NODE_PATH=.../node_modules node wrtc_whip_endpoint.js ADDR PORT OUT.json [TIMEOUT_S]
//
// The HTTP server binds ADDR only; every wait is bounded by TIMEOUT_S.
'use strict';
const http = require('http');
const wrtc = require('@roamhq/wrtc');
const { writeAndExit, countingPeerConnection } = require('./wrtc_stats.js');

const [addr, port, out, timeoutArg] = process.argv.slice(2);
const timeout = (parseFloat(timeoutArg) || 60) * 1000;
const t0 = Date.now();
const st = {
  answered: false, delete: false, frames: 0, first_frame_s: null, width: 0, height: 0,
  stats: {}, offer: null, answer: null,
};
let pc = null;
let done = false;

function now() { return (Date.now() - t0) / 1000; }

async function finish() {
  if (done) return;
  done = true;
  await writeAndExit(pc, st, out);
}

async function answer(offer) {
  pc = countingPeerConnection(wrtc, st, out, now);
  await pc.setRemoteDescription({ type: 'offer', sdp: offer });
  await pc.setLocalDescription(await pc.createAnswer());
  // every candidate in the answer: wait for the gathering (10 s at most)
  for (let i = 0; i < 500 && pc.iceGatheringState !== 'complete'; i++)
    await new Promise((r) => setTimeout(r, 20));
  return pc.localDescription.sdp;
}

const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (d) => { body += d; });
  req.on('end', async () => {
    if (req.method === 'POST' && !pc) {
      st.offer = body;
      try {
        const sdp = await answer(body);
        st.answer = sdp;
        st.answered = true;
        res.writeHead(201, {
          'Content-Type': 'application/sdp', Location: '/whip/resource/1',
          'Content-Length': Buffer.byteLength(sdp), Connection: 'close',
        });
        res.end(sdp);
      } catch (e) {
        st.error = String(e);
        console.error('answer failed:', e);
        res.writeHead(500);
        res.end();
      }
    } else if (req.method === 'DELETE') {
      st.delete = true;
      res.writeHead(200, { 'Content-Length': '0', Connection: 'close' });
      res.end();
      setTimeout(finish, 200);
    } else {
      res.writeHead(405);
      res.end();
    }
  });
});
server.listen(parseInt(port, 10), addr, () => console.log('ready'));
setTimeout(finish, timeout);
