package engine

import "errors"

// WriteSplit writes b through e, in one Write when it fits and otherwise
// in halves, each split again as long as it does not fit: for batches
// that need not be atomic (the blocks of a segment, deletions of dead
// keys). A single operation that does not fit fails with ErrTooLarge.
func WriteSplit(e Engine, b *Batch) error {
	err := e.Write(b)
	if err == nil || !errors.Is(err, ErrTooLarge) || b.Len() < 2 {
		return err
	}
	x, y := b.Split()
	if err := WriteSplit(e, x); err != nil {
		return err
	}
	return WriteSplit(e, y)
}

// PrefixEnd returns the smallest key above every key that starts with p,
// nil when there is none (p is empty or all 0xff).
func PrefixEnd(p []byte) []byte {
	end := append([]byte(nil), p...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] != 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}
