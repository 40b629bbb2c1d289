package rowblk

import "github.com/kvenc/kvenc/blockenc/internal/prefixkeys"

// Backward moves. A row cell decodes only after the cells before it, back
// to where the encoder starts over from an empty previous key (a RowIndex
// restart, an LZ4Dict sub-block start, the block start). Moving back to
// cell t decodes forward from the last such start before t (or from the
// current cell when it is before t in the same run) and keeps the cells it
// passes (up to prefixkeys.MaxBack before t) in the Back cache, from which
// the Prevs that follow take them without decoding: a reverse scan of a
// RowIndex block decodes each cell about twice, as a forward scan of
// every restart interval and a copy back out of the cache. None, Prefix,
// Diff and FastDiff decode from the block start (or sub-block start) each
// time the cache runs out, every MaxBack cells.

// Last moves to the last cell. It returns false if the block is empty or
// on error.
func (s *Reader) Last() bool { return s.back(s.LastIndex()) }

// Prev moves to the previous cell (from after the last cell: to the last
// one). From the first cell it returns false and leaves s before the first
// cell, where Next moves to it; it returns false on error too.
//
// back's first case written out: one call less per Prev.
func (s *Reader) Prev() bool {
	t := s.PrevIndex()
	if e := s.BackTo(t); e != nil {
		s.setBackValue(e.Val, t)
		return true
	}
	return s.back(t)
}

// setBackValue sets the value of cell t, restored from the Back cache
// with val its value bytes.
func (s *Reader) setBackValue(val []byte, t int) {
	s.val = val
	if s.intW == 0 {
		s.KV.Value = val
	} else {
		s.KV.Value = s.intValue(t)
	}
}

// SeekLT moves to the last cell whose key is < key. It scans as SeekGE
// does, keeping the cells it passes for the Prevs that follow.
func (s *Reader) SeekLT(key []byte) bool {
	if s.Fail != nil || !s.seekFrom(key) {
		return false
	}
	t, ok := s.ScanBack(s.Next, key)
	return ok && s.back(t)
}

// back moves to cell t: from the Back cache when it has it, else
// toCell; before the first cell when t < 0.
func (s *Reader) back(t int) bool {
	if e := s.BackTo(t); e != nil {
		s.setBackValue(e.Val, t)
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

// toCell moves to cell t (0 <= t < Count), decoding forward from the
// current cell when it is before t in the same run, else from the start of
// the run that holds t, and keeps the cells up to t in Back.
func (s *Reader) toCell(t int) bool {
	if len(s.area.Subs) > 0 {
		j := len(s.area.Subs) - 1
		for j > 0 && s.area.Subs[j].First > t {
			j--
		}
		if (j != s.Run || s.Idx > t) && !s.toSub(j) {
			return false
		}
	} else if s.Idx > t {
		s.rewind()
	}
	if s.enc == RowIndex {
		if r := t / s.Interval; s.Idx > t || s.Idx < r*s.Interval {
			s.ToRestart(r)
		}
	}
	for s.Idx <= t-prefixkeys.MaxBack { // keep the last MaxBack cells
		if !s.Next() {
			return false
		}
	}
	s.BackStart(s.Idx)
	for s.Idx <= t {
		if !s.Next() {
			return false
		}
		s.BackPush()
	}
	return true
}
