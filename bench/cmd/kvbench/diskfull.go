package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/kvenc/kvenc/bench/internal/report"
	"github.com/kvenc/kvenc/kv"
)

// diskfullEnv names the child of the diskfull subcommand: its value is
// "dir,writers".
const diskfullEnv = "KVBENCH_DISKFULL_CHILD"

// Full-disk workload: batches of 100 cells, 16-byte keys, 200 random bytes
// each, from writers goroutines, each writing keys of its own in order.
const (
	diskfullCells = 100
	diskfullCell  = 16 + 200 // key and value bytes of one cell
)

func diskfullKey(w, i, j int) []byte { return fmt.Appendf(nil, "w%02d-%08d-%03d", w, i, j) }

func diskfullValue(w, i, j int) []byte {
	r := rand.New(rand.NewPCG(uint64(w)<<32|uint64(i), uint64(j)))
	v := make([]byte, 200)
	for k := range v {
		v[k] = byte(r.Uint32())
	}
	return v
}

// diskfullResult is what a child reports.
type diskfullResult struct {
	Acked    []int  // acknowledged batches per writer
	Used     int64  // bytes used on the volume at the first ErrNoSpace
	Stored   int64  // Stats.BytesStored then
	FirstErr string // the first write error
	NoSpace  bool   // it wraps kv.ErrNoSpace
	Lost     int64  // acknowledged cells that did not read back before Close
	CloseErr string
}

// isDiskfullChild reports whether this process is a diskfull child.
func isDiskfullChild() bool { return os.Getenv(diskfullEnv) != "" }

// diskfullChild opens a Store with kv's defaults in dir and writes from
// writers goroutines until a write fails, then reads every acknowledged
// cell back and closes the Store; it prints a diskfullResult as JSON.
func diskfullChild() error {
	arg := strings.Split(os.Getenv(diskfullEnv), ",")
	if len(arg) != 2 {
		return fmt.Errorf("%s=%q: want dir,writers", diskfullEnv, os.Getenv(diskfullEnv))
	}
	dir := arg[0]
	writers, err := strconv.Atoi(arg[1])
	if err != nil {
		return err
	}
	s, err := kv.Open(kv.DefaultOptions(dir))
	if err != nil {
		return err
	}
	res := diskfullResult{Acked: make([]int, writers)}
	var once sync.Once
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				b := s.NewBatch()
				for j := range diskfullCells {
					b.Put(diskfullKey(w, i, j), diskfullValue(w, i, j))
				}
				if err := s.Apply(b); err != nil {
					once.Do(func() {
						res.FirstErr, res.NoSpace = err.Error(), errors.Is(err, kv.ErrNoSpace)
						res.Stored = s.Stats().BytesStored
						var st syscall.Statfs_t
						if syscall.Statfs(dir, &st) == nil {
							res.Used = int64(st.Blocks-st.Bfree) * int64(st.Bsize)
						}
					})
					return
				}
				res.Acked[w]++
			}
		}()
	}
	wg.Wait()
	res.Lost = diskfullCheck(s, res.Acked)
	if err := s.Close(); err != nil {
		res.CloseErr = err.Error()
	}
	return json.NewEncoder(os.Stdout).Encode(res)
}

// diskfullCheck returns how many of the acknowledged cells do not read
// back from s.
func diskfullCheck(s *kv.Store, acked []int) (lost int64) {
	for w, n := range acked {
		for i := range n {
			for j := range diskfullCells {
				v, err := s.Get(diskfullKey(w, i, j))
				if err != nil || !bytes.Equal(v, diskfullValue(w, i, j)) {
					lost++
				}
			}
		}
	}
	return lost
}

// runDiskfull fills tmpfs volumes (with -scale below 0.01, tiny data,
// only the 16 MiB one from one writer) with kv.Open's defaults until the
// Store refuses writes, each run in a child process (a crash there,
// SIGBUS in Badger's memory-mapped writes, is counted, not fatal), then
// grows the volume, reopens the Store here and reads every acknowledged
// cell back. It needs to mount tmpfs (root); elsewhere it says so and
// measures nothing.
func runDiskfull(e *env) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	sizes, writerCounts := []int{16, 48, 256}, []int{1, 16}
	if e.cfg.scale < 0.01 { // tiny data (tests): one small volume
		sizes, writerCounts = []int{16}, []int{1}
	}
	t := report.NewTable("diskfull", "Full disk: kv.Open defaults on a tmpfs, batches of 100 cells (16-byte keys, 200 random bytes) until the first error",
		"volume MiB", "writers", "crashed", "ErrNoSpace", "acked cells", "acked MB", "used MB at error", "live % of volume", "lost before Close", "lost after reopen")
	goals := newGoalTable("diskfull_goals", "Full disk goals")
	var crashes, lost int64
	live256 := math.NaN() // not measured (tiny data)
	for _, size := range sizes {
		for _, writers := range writerCounts {
			dir, err := e.tempDir()
			if err != nil {
				return err
			}
			if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%dm", size)); err != nil {
				fmt.Fprintf(e.stdout, "diskfull: skipped, cannot mount a tmpfs (needs root or CAP_SYS_ADMIN): %v\n", err)
				return nil
			}
			row, err := diskfullRun(exe, dir, size, writers)
			_ = syscall.Unmount(dir, syscall.MNT_DETACH)
			e.removeTemp(dir)
			if err != nil {
				return err
			}
			if row.crashed {
				crashes++
			}
			lost += row.res.Lost + row.lostReopen
			var cells int64
			for _, n := range row.res.Acked {
				cells += int64(n) * diskfullCells
			}
			livePct := float64(cells*diskfullCell) * 100 / float64(int64(size)<<20)
			if size == 256 && !(live256 <= livePct) { // the fewer of the writer counts
				live256 = livePct
			}
			t.Add(report.Int(int64(size)), report.Int(int64(writers)), strconv.FormatBool(row.crashed), strconv.FormatBool(row.res.NoSpace),
				report.Int(cells), report.Float(float64(cells*diskfullCell)/1e6, 1), report.Float(float64(row.res.Used)/1e6, 1),
				report.Float(livePct, 1), report.Int(row.res.Lost), report.Int(row.lostReopen))
		}
	}
	t.Note("acked MB: key and value bytes of the acknowledged cells; used MB: the volume's used blocks at the first refused write; lost after reopen: acknowledged cells missing after the volume was doubled and the Store reopened")
	if err := e.emit(t); err != nil {
		return err
	}
	goals.add("crashes (16, 48, 256 MiB; 1 and 16 writers)", float64(crashes), 0, crashes == 0, 0)
	goals.add("acknowledged cells lost", float64(lost), 0, lost == 0, 0)
	goals.add("live data at ErrNoSpace, 256 MiB, fewer of 1 and 16 writers (% of volume)", live256, 80, live256 >= 80, 1)
	return e.emit(goals.Table)
}

// diskfullRow is one run of the diskfull workload.
type diskfullRow struct {
	res        diskfullResult
	crashed    bool
	lostReopen int64
}

// diskfullRun runs the child on the tmpfs mounted on vol, then doubles the
// volume and checks the acknowledged cells after a reopen.
func diskfullRun(exe, vol string, size, writers int) (diskfullRow, error) {
	var row diskfullRow
	dir := filepath.Join(vol, "db")
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s,%d", diskfullEnv, dir, writers))
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			row.crashed = true
		} else {
			return row, fmt.Errorf("diskfull child (%d MiB, %d writers): %w: %s", size, writers, err, stderr.String())
		}
	} else if err != nil {
		return row, err
	}
	if !row.crashed {
		if err := json.Unmarshal(out.Bytes(), &row.res); err != nil {
			return row, fmt.Errorf("diskfull child output %q: %w", out.String(), err)
		}
	}
	if err := syscall.Mount("tmpfs", vol, "tmpfs", syscall.MS_REMOUNT, fmt.Sprintf("size=%dm", 2*size)); err != nil {
		return row, err
	}
	s, err := kv.Open(kv.DefaultOptions(dir))
	if err != nil {
		return row, fmt.Errorf("reopen after the full disk (%d MiB, %d writers): %w", size, writers, err)
	}
	row.lostReopen = diskfullCheck(s, row.res.Acked)
	return row, s.Close()
}
