'use strict';
// mulberry32: a small seeded uniform generator in [0, 1), shared by the fixture generators
// so that every fixture's inputs (and the ports' random draws) are reproducible.
function mulberry32(seed) {
  let state = seed | 0;
  return () => {
    state = (state + 0x6D2B79F5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

module.exports = {mulberry32};
