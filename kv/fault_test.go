package kv

import (
	"errors"
	"fmt"
	"testing"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/kvenc/kvenc/kv/engine"
	"github.com/kvenc/kvenc/kv/engine/enginetest"
	"github.com/kvenc/kvenc/kv/internal/badgereng"
	"github.com/stretchr/testify/require"
)

// faultRun is one run of faultWorkload: the model of what the Store
// acknowledged, and the batch that failed (if a write failed), whose
// ops are all applied or none.
type faultRun struct {
	m      model
	failed map[string]*string // key -> value the failed batch wrote (nil: deleted)
}

// apply writes b (built by build into a fresh batch and into want, the
// key -> value it writes) and updates the model when it is acknowledged.
func (r *faultRun) apply(s *Store, build func(b *Batch, want map[string]*string)) error {
	b := s.NewBatch()
	want := map[string]*string{}
	build(b, want)
	if err := s.Apply(b); err != nil {
		r.failed = want
		return err
	}
	for k, v := range want {
		if v == nil {
			delete(r.m, k)
		} else {
			r.m[k] = *v
		}
	}
	return nil
}

func strp(s string) *string { return &s }

// faultWorkload writes, flushes, reads, range-deletes, compacts and scans,
// stopping at the first error, which it returns.
func faultWorkload(s *Store, r *faultRun) error {
	key := func(i int) string { return fmt.Sprintf("key%03d", i) }
	for round := range 4 {
		err := r.apply(s, func(b *Batch, want map[string]*string) {
			for j := range 40 {
				k, v := key(round*25+j), fmt.Sprintf("round %d value %d %040d", round, j, j)
				b.Put([]byte(k), []byte(v))
				want[k] = strp(v)
			}
		})
		if err != nil {
			return err
		}
		if round == 1 {
			if err := s.Flush(); err != nil {
				return err
			}
		}
	}
	err := r.apply(s, func(b *Batch, want map[string]*string) {
		b.Delete([]byte(key(3)))
		want[key(3)] = nil
		b.DeleteRange([]byte(key(10)), []byte(key(20)))
		for i := 10; i < 20; i++ {
			want[key(i)] = nil
		}
		b.Put([]byte(key(200)), []byte("late"))
		want[key(200)] = strp("late")
	})
	if err != nil {
		return err
	}
	if err := s.Flush(); err != nil {
		return err
	}
	for _, i := range []int{0, 3, 15, 60, 99, 200} {
		v, err := s.Get([]byte(key(i)))
		want, ok := r.m[key(i)]
		switch {
		case errors.Is(err, ErrNotFound) && !ok:
		case err != nil && !errors.Is(err, ErrNotFound):
			return err
		case err != nil || !ok || string(v) != want:
			return fmt.Errorf("wrong answer: Get %s = %q, %v; want %q", key(i), v, err, want)
		}
	}
	if err := s.Compact(); err != nil {
		return err
	}
	got, err := scan(s.NewIterator(IterOptions{}))
	if err != nil {
		return err
	}
	if want := r.m.rangeOf(nil, nil); fmt.Sprint(got) != fmt.Sprint(want) {
		return fmt.Errorf("wrong answer: scan %v, want %v", got, want)
	}
	return nil
}

// faultEngines are the Badger engines the fault test runs on: under Wrap
// (writes commit before the memstore takes them) and owned (WriteAsync
// overlaps them; garbage dropped with DropPrefixes).
var faultEngines = []struct {
	name string
	// every: fail every call of a run (else about 50 of them: each run
	// reopens Badger on disk three times)
	every bool
	// open returns an engine on the same store each time it is called.
	open func(t *testing.T) func() engine.Engine
}{
	{"wrap", true, func(t *testing.T) func() engine.Engine {
		db, err := badger.Open(badger.DefaultOptions("").WithInMemory(true).WithLogger(nil))
		require.NoError(t, err)
		t.Cleanup(func() { db.Close() })
		return func() engine.Engine { return badgereng.Wrap(db) }
	}},
	{"own", false, func(t *testing.T) func() engine.Engine {
		dir := t.TempDir()
		return func() engine.Engine {
			e, err := badgereng.Open(smallBadger(badger.DefaultOptions(dir)).WithLogger(nil))
			require.NoError(t, err)
			return e
		}
	}},
}

// TestEngineFaults fails each engine call of a workload in turn (the
// Nth of a run, for every N the run makes; on disk every few): the Store returns an error
// wrapping engine.ErrInjected, never a wrong answer, and reopened on the
// engine without faults it holds every write it acknowledged, the failed
// batch whole or not at all, and works.
func TestEngineFaults(t *testing.T) {
	o := testOptions("")
	o.Prefix = []byte("f")
	o.CompactionTrigger = -1
	for _, fe := range faultEngines {
		t.Run("engine="+fe.name, func(t *testing.T) {
			// A run without faults counts the calls.
			open := fe.open(t)
			inj := enginetest.New(open())
			s, err := OpenEngine(inj.Engine(), o)
			require.NoError(t, err)
			s.dropAlways = true
			r := &faultRun{m: model{}}
			require.NoError(t, faultWorkload(s, r))
			require.NoError(t, s.Close())
			total := inj.Calls()
			require.Greater(t, total, int64(50))
			step := int64(1)
			if !fe.every {
				step = max(1, total/50)
			}
			t.Logf("%d engine calls in a run; failing every %d-th", total, step)
			runs, failed := 0, 0
			for n := int64(1); n <= total; n += step {
				runs++
				open := fe.open(t)
				s, err := OpenEngine(open(), o)
				require.NoError(t, err)
				require.NoError(t, s.Close()) // registered: the faults hit the workload
				inj := enginetest.New(open())
				s, err = OpenEngine(inj.Engine(), o)
				require.NoError(t, err, "fault at call %d", n)
				s.dropAlways = true
				inj.FailAt(n, false)
				r := &faultRun{m: model{}}
				err = faultWorkload(s, r)
				if inj.Injected() > 0 && err != nil {
					failed++
					require.ErrorIs(t, err, engine.ErrInjected, "fault at call %d", n)
				} else {
					require.NoError(t, err, "fault at call %d (injected %d)", n, inj.Injected())
				}
				_ = s.Close() // may fail: a flush that met the fault in the background

				s, err = OpenEngine(open(), o)
				require.NoError(t, err, "reopen after a fault at call %d", n)
				requireFaultModel(t, s, r, n)
				require.NoError(t, s.Compact(), "fault at call %d", n)
				requireFaultModel(t, s, r, n)
				require.NoError(t, s.Close(), "fault at call %d", n)
			}
			// Most faults hit the workload's own calls (the others a
			// background flush, which a later Flush retries).
			require.Greater(t, failed, runs/2, "runs whose workload returned the fault")
		})
	}
}

// requireFaultModel requires s to hold r's acknowledged writes, and the
// failed batch applied whole or not at all.
func requireFaultModel(t *testing.T, s *Store, r *faultRun, n int64) {
	t.Helper()
	m := r.m
	if len(r.failed) > 0 {
		applied := m.clone()
		for k, v := range r.failed {
			if v == nil {
				delete(applied, k)
			} else {
				applied[k] = *v
			}
		}
		got, err := scan(s.NewIterator(IterOptions{}))
		require.NoError(t, err)
		if fmt.Sprint(got) == fmt.Sprint(applied.rangeOf(nil, nil)) {
			m = applied
		}
	}
	requireModel(t, s, m, "after a fault at call %d", n)
}
