// Package ycsbbench runs the YCSB core workloads A to F through go-ycsb's
// workload package (as a library) against kvenc's store and raw Badger v4,
// through one adapter implementing go-ycsb's DB interface over each.
//
// As upstream YCSB (not go-ycsb's shipped workload files, which say
// uniform): zipfian requests in A, B, C, E and F, latest in D, and scans of
// up to 100 records in E. go-ycsb seeds its per-thread generators from the
// clock, so request sequences differ between runs.
package ycsbbench

import (
	"context"
	"fmt"

	"github.com/pingcap/go-ycsb/pkg/ycsb"
)

// db adapts a Store to go-ycsb's DB: one value per record holding every
// field; Update reads, merges and writes back (as go-ycsb's own Badger and
// Pebble bindings do). The table name is ignored: one table per run.
type db struct{ s Store }

var _ ycsb.DB = db{}

func (d db) Close() error { return nil } // the runner closes the Store

func (d db) InitThread(ctx context.Context, _, _ int) context.Context { return ctx }

func (d db) CleanupThread(context.Context) {}

func (d db) Read(_ context.Context, _ string, key string, fields []string) (map[string][]byte, error) {
	v, err := d.s.Get([]byte(key))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", key, err)
	}
	m := make(map[string][]byte, 10)
	return m, decodeRecord(m, v, fields)
}

func (d db) Scan(_ context.Context, _ string, start string, count int, fields []string) ([]map[string][]byte, error) {
	var out []map[string][]byte
	err := d.s.Scan([]byte(start), count, func(_, v []byte) error {
		m := make(map[string][]byte, 10)
		out = append(out, m)
		return decodeRecord(m, v, fields)
	})
	return out, err
}

func (d db) Update(_ context.Context, _ string, key string, values map[string][]byte) error {
	k := []byte(key)
	old, err := d.s.Get(k)
	if err != nil {
		return fmt.Errorf("update %s: %w", key, err)
	}
	m := make(map[string][]byte, 10)
	if err := decodeRecord(m, old, nil); err != nil {
		return err
	}
	for f, v := range values {
		m[f] = v
	}
	return d.s.Put(k, encodeRecord(nil, m))
}

func (d db) Insert(_ context.Context, _ string, key string, values map[string][]byte) error {
	return d.s.Put([]byte(key), encodeRecord(nil, values))
}

func (d db) Delete(_ context.Context, _ string, key string) error { return d.s.Delete([]byte(key)) }
