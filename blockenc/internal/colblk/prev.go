package colblk

import "github.com/kvenc/kvenc/blockenc/internal/prefixkeys"

// Backward moves. Fixed-length keys, seqs, kinds and values are read at
// any index: moving back to a cell costs what a Next does. Prefix keys
// decode only forward, from a restart: moving back to cell t decodes the
// keys from the restart before it (or from the current cell when it is
// before t in the same interval) and keeps them in the Back cache, from
// which the Prevs that follow take them without decoding.

// Last is blockenc.Seeker.Last for a Columnar block.
func (s *Reader) Last() bool { return s.back(s.LastIndex()) }

// Prev is blockenc.Seeker.Prev for a Columnar block.
func (s *Reader) Prev() bool { return s.back(s.PrevIndex()) }

// SeekLT is blockenc.Seeker.SeekLT for a Columnar block: with prefix keys
// it scans as SeekGE does, keeping the cells it passes for the Prevs that
// follow; fixed-length keys are a SeekGE and a Prev.
func (s *Reader) SeekLT(key []byte) bool {
	if s.Fail != nil {
		return false
	}
	if s.kmode == colKeysFixed {
		if s.seekFixed(key) || s.Fail != nil {
			return s.Prev()
		}
		return s.Last() // every key is below key
	}
	i, ok := s.SeekStart(key)
	if !ok {
		return false
	}
	if i >= 0 {
		s.ToRestart(i)
	}
	t, ok := s.ScanBack(s.Next, key)
	return ok && s.back(t)
}

// back moves to cell t: from the Back cache when it has it, else
// toCell; before the first cell when t < 0.
func (s *Reader) back(t int) bool {
	if s.BackTo(t) != nil {
		if uint(t-s.cellLo) >= uint(s.cellHi-s.cellLo) && !s.loadCell(t) {
			s.Valid = false
			return false
		}
		s.value(t)
		return true
	}
	if t < 0 {
		if s.Fail == nil {
			s.rewind()
		}
		return false
	}
	return s.toCell(t)
}

// toCell moves to cell t (0 <= t < Count).
func (s *Reader) toCell(t int) bool {
	if s.kmode == colKeysFixed {
		s.Idx = t
		return s.step() && s.land()
	}
	if r := t / s.Interval; s.Idx > t || s.Idx < r*s.Interval {
		s.ToRestart(r)
	}
	for s.Idx < t-prefixkeys.MaxBack { // keep the last MaxBack cells
		if !s.step() {
			return false
		}
	}
	s.BackStart(s.Idx)
	// The cells before t: keys and seqs only (Back keeps no values: back
	// reads them by index). Measured with callgrind on kvbench's random
	// key set: a reverse scan cost 539 instructions per cell landing every
	// cell of the interval, 448 without.
	for s.Idx < t {
		if !s.step() {
			return false
		}
		if s.seqMode != colSeqsInline {
			s.KV.Seq = uint64(s.seqs[s.Idx-1])
		} else if !s.LandSeq() {
			return false
		}
		s.BackPush()
	}
	if !s.step() || !s.land() {
		return false
	}
	s.BackPush()
	return true
}
