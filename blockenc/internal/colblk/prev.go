package colblk

// Backward moves. Fixed-length keys and every other column are read at any
// index; prefix keys are decoded forward from the restart at or before
// the cell.

// Last is blockenc.Seeker.Last for a Columnar block.
func (s *Reader) Last() bool { return s.back(s.LastIndex()) }

// Prev is blockenc.Seeker.Prev for a Columnar block.
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

// toCell moves to cell t (0 <= t < Count).
func (s *Reader) toCell(t int) bool {
	if s.kmode == colKeysFixed {
		s.Idx = t
		return s.step() && s.land()
	}
	if r := t / s.Interval; s.Idx > t || s.Idx < r*s.Interval {
		s.ToRestart(r)
	}
	for s.Idx < t {
		if !s.step() {
			return false
		}
	}
	return s.step() && s.land()
}
