package mvcc

// ring is a FIFO of completion flags, one per write in flight, oldest first.
// It grows by doubling and never shrinks: its size is the largest number of
// writes that were ever in flight at once.
type ring struct {
	flags []bool // len is a power of two (or 0)
	head  int    // index of the oldest flag
	n     int    // number of flags in use
}

// push appends a not-done flag for the newest write.
func (r *ring) push() {
	if r.n == len(r.flags) {
		r.grow()
	}
	r.flags[(r.head+r.n)&(len(r.flags)-1)] = false
	r.n++
}

func (r *ring) grow() {
	size := 2 * len(r.flags)
	if size == 0 {
		size = 16
	}
	flags := make([]bool, size)
	for i := 0; i < r.n; i++ {
		flags[i] = r.flags[(r.head+i)&(len(r.flags)-1)]
	}
	r.flags, r.head = flags, 0
}

// set marks the i-th oldest write done; 0 <= i < r.n.
func (r *ring) set(i int) { r.flags[(r.head+i)&(len(r.flags)-1)] = true }

// popDone removes the done flags at the front and returns how many it removed.
func (r *ring) popDone() int {
	k := 0
	for r.n > 0 && r.flags[r.head] {
		r.head = (r.head + 1) & (len(r.flags) - 1)
		r.n--
		k++
	}
	return k
}
