package rowblk

// Backward moves. A row cell can only be decoded after the cells before it
// (back to a RowIndex restart, an LZ4Dict sub-block start or the block
// start: where the encoder starts over from an empty previous key), so
// moving back to cell t decodes forward from the last such start at or
// before t.

// Last moves to the last cell. It returns false if the block is empty or
// on error.
func (s *Reader) Last() bool { return s.back(s.LastIndex()) }

// Prev moves to the previous cell (from after the last cell: to the last
// one). From the first cell it returns false and leaves s before the first
// cell, where Next moves to it; it returns false on error too.
func (s *Reader) Prev() bool { return s.back(s.PrevIndex()) }

// back moves to cell t, or before the first cell when t < 0.
func (s *Reader) back(t int) bool {
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
// the run that holds t.
func (s *Reader) toCell(t int) bool {
	if len(s.area.Subs) > 0 {
		j := len(s.area.Subs) - 1
		for j > 0 && s.area.Subs[j].First > t {
			j--
		}
		if (j != s.sub || s.Idx > t) && !s.toSub(j) {
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
	for s.Idx < t {
		if !s.step() {
			return false
		}
	}
	return s.next()
}
