// The libwebrtc (npm @roamhq/wrtc) receivers of the whip tests: a
// PeerConnection that counts the video frames it decodes, and what they
// read of getStats() (the video inbound-rtp entry's counters).
'use strict';
const fs = require('fs');

const KEYS = ['packetsReceived', 'packetsLost', 'nackCount', 'pliCount', 'firCount',
  'framesDecoded', 'keyFramesDecoded', 'framesDropped', 'freezeCount',
  'totalFreezesDuration', 'bytesReceived', 'jitter', 'framesReceived'];

// the counters of PC's video receiver into DST (DST.stats_error if getStats fails)
async function videoInboundStats(pc, dst) {
  try {
    const report = await pc.getStats();
    report.forEach((s) => {
      if (s.type === 'inbound-rtp' && (s.kind === 'video' || s.mediaType === 'video')) {
        for (const k of KEYS)
          if (s[k] !== undefined) dst.stats[k] = s[k];
        // the codec it decoded (its codec entry's MIME type)
        const c = s.codecId && report.get(s.codecId);
        if (c && c.mimeType) dst.stats.mimeType = c.mimeType;
      }
    });
  } catch (e) {
    dst.stats_error = String(e);
  }
}

// the end of a test peer: PC's counters into ST, PC closed, ST written to
// OUT as JSON (atomically: the test waits for OUT), the process ends
async function writeAndExit(pc, st, out) {
  if (pc) {
    await videoInboundStats(pc, st);
    pc.close();
  }
  fs.writeFileSync(out + '.tmp', JSON.stringify(st));
  fs.renameSync(out + '.tmp', out);
  process.exit(0);
}

// a receiving PeerConnection of WRTC whose video frames are counted into
// ST (frames, first_frame_s and last_frame_s by NOW(), the size); the
// first frame also makes the file OUT.first, which the tests wait for
function countingPeerConnection(wrtc, st, out, now) {
  const pc = new wrtc.RTCPeerConnection({ iceServers: [] });
  pc.ontrack = (ev) => {
    if (ev.track.kind !== 'video') return;
    const sink = new wrtc.nonstandard.RTCVideoSink(ev.track);
    sink.onframe = ({ frame }) => {
      st.frames++;
      st.last_frame_s = now();
      st.width = frame.width;
      st.height = frame.height;
      if (st.first_frame_s === null) {
        st.first_frame_s = st.last_frame_s;
        fs.writeFileSync(out + '.first', '');
        // what was dropped before the first frame shown (the frames that
        // came before the first keyframe): the counters then, apart
        const then = { stats: {} };
        videoInboundStats(pc, then).then(() => { st.at_first_frame = then.stats; });
      }
    };
  };
  return pc;
}

module.exports = { videoInboundStats, writeAndExit, countingPeerConnection };
