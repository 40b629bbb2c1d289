package kvtikv

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/kvenc/kvenc/kv"
	"github.com/kvenc/kvenc/kv/engine"
	"github.com/kvenc/kvenc/kv/engine/enginetest"
	"github.com/stretchr/testify/require"
	"github.com/tikv/client-go/v2/tikv"
)

// faultRun is what a workload got acknowledged, and the batch whose
// Apply failed (all of it applied or none).
type faultRun struct {
	m      model
	failed model // key -> value ("" deleted)
}

// apply writes puts (value "" deletes) in one batch and notes the outcome.
func (r *faultRun) apply(s *kv.Store, puts model) error {
	b := s.NewBatch()
	for k, v := range puts {
		if v == "" {
			b.Delete([]byte(k))
		} else {
			b.Put([]byte(k), []byte(v))
		}
	}
	if err := s.Apply(b); err != nil {
		r.failed = puts
		return err
	}
	for k, v := range puts {
		if v == "" {
			delete(r.m, k)
		} else {
			r.m[k] = v
		}
	}
	return nil
}

// faultWorkload writes, flushes, deletes, reads, compacts and scans,
// stopping at the first error.
func faultWorkload(s *kv.Store, r *faultRun) error {
	for round := range 4 {
		puts := model{}
		for j := range 40 {
			puts[key(round*25+j)] = value(j, round)
		}
		if round == 3 {
			puts[key(3)] = ""
		}
		if err := r.apply(s, puts); err != nil {
			return err
		}
		if round == 1 {
			if err := s.Flush(); err != nil {
				return err
			}
		}
	}
	if err := s.Flush(); err != nil {
		return err
	}
	for _, i := range []int{0, 3, 60, 99} {
		v, err := s.Get([]byte(key(i)))
		want, ok := r.m[key(i)]
		switch {
		case errors.Is(err, kv.ErrNotFound) && !ok:
		case err != nil && !errors.Is(err, kv.ErrNotFound):
			return err
		case err != nil || !ok || string(v) != want:
			return fmt.Errorf("wrong answer: Get %s = %q, %v; want %q", key(i), v, err, want)
		}
	}
	if err := s.Compact(); err != nil {
		return err
	}
	it := s.NewIterator(kv.IterOptions{})
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		n++
	}
	if err := it.Close(); err != nil {
		return err
	}
	if n != len(r.m) {
		return fmt.Errorf("wrong answer: scan found %d keys, want %d", n, len(r.m))
	}
	return nil
}

// openInjected opens a writer on store whose engine calls go through an
// Injector.
func openInjected(store *tikv.KVStore, o kv.Options) (*kv.Store, *enginetest.Injector, error) {
	e := newEngine(store, o, nil)
	if err := e.lease.acquire(context.Background()); err != nil {
		return nil, nil, err
	}
	inj := enginetest.New(e)
	s, err := kv.OpenEngine(inj.Engine(), o)
	if err != nil {
		_ = e.Close()
	}
	return s, inj, err
}

// Engine faults on TiKV: the Nth engine call of a workload fails, for N
// over the whole run; the Store returns an error wrapping
// engine.ErrInjected (never a wrong answer), and reopened without faults
// holds every acknowledged write, the failed batch whole or not at all.
func TestEngineFaults(t *testing.T) {
	store := mockStore(t, "")
	o := testOptions("x")
	o.CompactionTrigger = -1
	s, inj, err := openInjected(store, o)
	require.NoError(t, err)
	r := &faultRun{m: model{}}
	require.NoError(t, faultWorkload(s, r))
	require.NoError(t, s.Close())
	total := inj.Calls()
	require.Greater(t, total, int64(50))
	step := max(1, total/60)
	runs, failed := 0, 0
	for n := int64(1); n <= total; n += step {
		runs++
		o.Prefix = fmt.Appendf(nil, "x%d", n)
		s, err := Open(store, o) // registered: the faults hit the workload
		require.NoError(t, err)
		require.NoError(t, s.Close())
		s, inj, err := openInjected(store, o)
		require.NoError(t, err, "fault at call %d", n)
		inj.FailAt(n, false)
		r := &faultRun{m: model{}}
		err = faultWorkload(s, r)
		if inj.Injected() > 0 && err != nil {
			failed++
			require.ErrorIs(t, err, engine.ErrInjected, "fault at call %d", n)
		} else {
			require.NoError(t, err, "fault at call %d (injected %d)", n, inj.Injected())
		}
		_ = s.Close() // may fail: a background flush that met the fault

		s, err = Open(store, o)
		require.NoError(t, err, "reopen after a fault at call %d", n)
		m := r.m
		if r.failed != nil {
			applied := model{}
			for k, v := range m {
				applied[k] = v
			}
			for k, v := range r.failed {
				if v == "" {
					delete(applied, k)
				} else {
					applied[k] = v
				}
			}
			if fmt.Sprint(scanAll(t, s)) == fmt.Sprint(applied.sorted()) {
				m = applied // the failed batch went in whole
			}
		}
		requireModel(t, s, m, "after a fault at call %d", n)
		require.NoError(t, s.Compact(), "fault at call %d", n)
		requireModel(t, s, m, "compacted after a fault at call %d", n)
		require.NoError(t, s.Close(), "fault at call %d", n)
	}
	t.Logf("%d engine calls in a run; %d runs, %d returned the fault", total, runs, failed)
	require.Greater(t, failed, runs/2, "runs whose workload returned the fault")
}

func scanAll(t *testing.T, s *kv.Store) [][2]string {
	got := [][2]string{}
	it := s.NewIterator(kv.IterOptions{})
	for ok := it.First(); ok; ok = it.Next() {
		got = append(got, [2]string{string(it.Key()), string(it.Value())})
	}
	require.NoError(t, it.Close())
	return got
}
