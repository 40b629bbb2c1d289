package segread

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// ReadAhead: Sources read ahead when the process may run two goroutines
// at once (a variable so that tests and benchmarks can turn it off).
var ReadAhead = runtime.GOMAXPROCS(0) > 1

// ReaderRun and ScanRun: of every ReaderRun+ScanRun blocks the read-ahead
// goroutine reads, it decompresses the first ReaderRun and hands the
// others over as read, for the scan to decode as it steps through them.
// The scan also steps through the cells of every block, so its runs are
// the shorter ones: on lineitem rows a block costs the reader about 18 us
// and the scan about 3 us more, and 3 against 2 keeps both about equally
// busy.
const (
	ReaderRun = 3
	ScanRun   = 2
)

// AheadAfter is how many blocks a scan reads in one direction, with point
// reads, before a reader goroutine reads ahead of it. A reader reads up
// to ReaderRun+ScanRun blocks past the one the scan is on, which a scan
// that ends soon never uses, and its engine iterator costs a transaction:
// a short scan (YCSB's, up to 100 records of 1 KB, at most 8 blocks of 16
// KiB) is cheaper without one. A long scan reads all but its first
// AheadAfter blocks ahead.
const AheadAfter = 8

// ahead is the goroutine that reads ahead of a scan through a segment.
// From the scan's AheadAfter'th block in one direction on, it reads every
// block after it in order, through one Cursor, so that each block is fetched
// from the engine once (on engines whose iterators fetch values in
// batches, TiKV, a second cursor over the same blocks would fetch every
// block again). The two share the decoding: the reader decompresses whole
// (blockenc.Seeker.Decompress) the blocks of its runs, the scan decodes
// those of its runs as it goes, and steps through the cells of all, so
// the two decode on their own processors. The reader stops at the
// segment's end, at the scan's bounds as they were when it started, at an
// error and when the scan turns, seeks or closes. The scan does not wait
// for it to stop: whichever of the two lets go last releases the blocks
// read and not taken (see stop and leftover).
type ahead struct {
	rd    *Reader
	dir   int
	first int           // the reader's first block
	want  int           // the block the scan takes from out next
	out   chan fetched  // the blocks read, in order
	free  chan Spare    // buffers and Seekers of blocks the scan has left
	quit  chan struct{} // closed by stop
	done  chan struct{} // closed when the goroutine has returned
	// left counts the scan's stop and the goroutine's end: the second
	// releases what is left in out and free.
	left atomic.Int32
	// returned is set, under the Reader's aheads.mu, as the goroutine
	// returns.
	returned bool
	// sendSpin (the reader's) and recvSpin (the scan's): how long the
	// next hand-over polls (see poll).
	sendSpin, recvSpin time.Duration
}

// decompresses reports whether the reader decompresses block j (it lies
// in one of the reader's runs).
func (r *ahead) decompresses(j int) bool {
	return ((j-r.first)*r.dir)%(ReaderRun+ScanRun) < ReaderRun
}

// startReader starts a reader goroutine at block i, which the scan will
// reach after the one it is about to read, unless i is past the
// segment's end or the scan's bounds.
func (it *Source) startReader(i int) {
	lower, upper := it.scanBounds()
	if i < 0 || i >= len(it.g.BlockKeys) || !it.g.InBounds(i, lower, upper) {
		return
	}
	r := &ahead{
		rd:    it.r,
		dir:   it.dir,
		first: i,
		want:  i,
		out:   make(chan fetched, ReaderRun+ScanRun),
		free:  make(chan Spare, ReaderRun+ScanRun),
		quit:  make(chan struct{}),
		done:  make(chan struct{}),

		sendSpin: spinFor,
		recvSpin: spinFor,
	}
	it.ahead = r
	// The blocks it reads go into the cache while the scan as a whole has
	// read less than the cache holds (see fillNext).
	streamed, fill := it.streamed, it.fill
	go func() {
		defer r.end()
		var sp Spare
		defer func() { sp.release() }()
		cur := it.r.NewCursor(it.g, r.dir < 0)
		defer cur.Close()
		for j := i; j >= 0 && j < len(it.g.BlockKeys) && it.g.InBounds(j, lower, upper); j += r.dir {
			select {
			case <-r.quit:
				return
			case s := <-r.free:
				sp.release()
				sp = s
			default:
			}
			f := it.fetch(j, false, fill && streamed <= it.r.c.Cache.Max, &sp, cur)
			if f.err == nil {
				if r.decompresses(j) {
					f.sk.Decompress()
				}
				streamed += f.cb.Cost
			}
			if !r.send(f) || f.err != nil {
				return
			}
		}
	}()
}

// scanBounds returns the bounds of the source's scan (none in
// compaction).
func (it *Source) scanBounds() (lower, upper []byte) {
	if it.bounds == nil {
		return nil, nil
	}
	return it.bounds.Lower, it.bounds.Upper
}

// take returns the next block the reader read, r.want, waiting for it,
// and moves r.want on; ok is false when the reader has stopped short of
// it.
func (r *ahead) take() (f fetched, ok bool) {
	f, ok = r.receive()
	if ok {
		r.want += r.dir
	}
	return f, ok
}

// recycle hands the buffer and Seeker of an uncached block the scan has
// left to the reader, if it has room for them.
func (r *ahead) recycle(s Spare) bool {
	select {
	case r.free <- s:
		return true
	default:
		return false
	}
}

// stop tells the reader to stop, without waiting for it: it returns
// after at most the block it is reading. The blocks it read and the
// spares it was handed are let go by whichever of the scan and the reader
// lets go last. Until the reader has returned, Reader.Shut waits for it.
func (r *ahead) stop() {
	r.rd.aheads.stopping(r)
	close(r.quit)
	if r.left.Add(1) == 2 {
		r.leftover()
	}
}

// end is the reader goroutine's last act: it closes out, lets go of what
// is left if the scan has stopped it, and closes done.
func (r *ahead) end() {
	close(r.out)
	if r.left.Add(1) == 2 {
		r.leftover()
	}
	r.rd.aheads.ended(r)
	close(r.done)
}

// leftover lets go of the blocks read and not taken and of the spares
// handed back, once the scan and the reader have both let go of r.
func (r *ahead) leftover() {
	for f := range r.out {
		f.release()
	}
	for {
		select {
		case s := <-r.free:
			s.release()
		default:
			return
		}
	}
}

// aheads are the reader goroutines of a Reader that were told to stop
// and have not returned yet: Shut waits for them, so that none reads
// from the engine after it.
type aheads struct {
	mu      sync.Mutex
	stopped map[*ahead]struct{}
}

// stopping records r, about to be stopped, unless it has returned.
func (a *aheads) stopping(r *ahead) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if r.returned {
		return
	}
	if a.stopped == nil {
		a.stopped = map[*ahead]struct{}{}
	}
	a.stopped[r] = struct{}{}
}

// ended forgets r, which is returning.
func (a *aheads) ended(r *ahead) {
	a.mu.Lock()
	r.returned = true
	delete(a.stopped, r)
	a.mu.Unlock()
}

// wait waits for the readers stopped before it to return.
func (a *aheads) wait() {
	a.mu.Lock()
	var wait []chan struct{}
	for r := range a.stopped {
		wait = append(wait, r.done)
	}
	a.mu.Unlock()
	for _, done := range wait {
		<-done
	}
}

// spinFor is the longest the scan and the reader poll for each other
// (yielding the processor between polls) before they block. A goroutine
// blocked on a channel is woken onto the processor of the one that
// unblocks it, and waits there until that one blocks or an idle
// processor wakes and takes it, which on virtual machines can take longer
// than reading the blocks of a run: polling keeps each on its own
// processor while the scan runs. A poll that runs out halves the next
// one's time, down to none, so that a scan whose caller is slow (or a
// reader waiting on the disk) does not keep a processor spinning; a poll
// that succeeds restores it.
const spinFor = time.Millisecond

// poll calls try, yielding the processor between calls, until it returns
// true or *spin has passed, and reports whether it did; it halves *spin
// when it runs out and restores it to spinFor when try succeeds after a
// wait.
func poll(spin *time.Duration, try func() bool) bool {
	if try() {
		return true
	}
	t0 := time.Now()
	for k := 1; ; k++ {
		if k%64 == 0 && time.Since(t0) > *spin {
			if *spin /= 2; *spin < spinFor/64 {
				*spin = 0
			}
			return false
		}
		runtime.Gosched()
		if try() {
			*spin = spinFor
			return true
		}
	}
}

// send hands f to the scan; false if stop came first (f released).
func (r *ahead) send(f fetched) bool {
	var sent, quit bool
	poll(&r.sendSpin, func() bool {
		select {
		case r.out <- f:
			sent = true
		case <-r.quit:
			quit = true
		default:
			return false
		}
		return true
	})
	if !sent && !quit {
		select {
		case r.out <- f:
			sent = true
		case <-r.quit:
		}
	}
	if !sent {
		f.release()
	}
	return sent
}

// receive is the scan's receive from r.out, polling first as send does.
func (r *ahead) receive() (f fetched, ok bool) {
	if poll(&r.recvSpin, func() bool {
		select {
		case f, ok = <-r.out:
			return true
		default:
			return false
		}
	}) {
		return f, ok
	}
	f, ok = <-r.out
	return f, ok
}
