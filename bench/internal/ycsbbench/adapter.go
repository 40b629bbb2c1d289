// Package ycsbbench runs the YCSB core workloads through go-ycsb's
// workload package (as a library) against kvenc's store, raw Badger v4 and
// Pebble v2, through one adapter implementing go-ycsb's DB interface over
// each, from several client goroutines at once.
//
// As upstream YCSB (not go-ycsb's shipped workload files, which say
// uniform): zipfian requests in A, B, C, E and F, and scans of up to 100
// records in E. go-ycsb seeds its generators from the clock, so request
// sequences differ between runs.
package ycsbbench

import (
	"context"
	"fmt"

	"github.com/pingcap/go-ycsb/pkg/ycsb"
)

// Op is the kind of one YCSB operation, as upstream YCSB reports them.
type Op int

// The operation kinds.
const (
	OpRead Op = iota
	OpUpdate
	OpInsert
	OpScan
	OpReadModifyWrite
	numOps
)

var opNames = [numOps]string{"read", "update", "insert", "scan", "read-modify-write"}

func (o Op) String() string { return opNames[o] }

// clientKey finds a client goroutine's *client in the context go-ycsb
// passes to the DB.
type clientKey struct{}

// client is one client goroutine's record of its operations: the DB calls
// of the operation in progress (which tell its kind) and, per kind, the
// latencies.
type client struct {
	calls    uint8 // bits 1<<Op
	lat      [numOps][]int64
	notFound int
}

// kind is the operation that made the DB calls c.calls: go-ycsb's
// read-modify-write is a Read then an Update.
func (c *client) kind() Op {
	switch c.calls {
	case 1<<OpRead | 1<<OpUpdate:
		return OpReadModifyWrite
	case 1 << OpUpdate:
		return OpUpdate
	case 1 << OpInsert:
		return OpInsert
	case 1 << OpScan:
		return OpScan
	}
	return OpRead
}

func called(ctx context.Context, op Op) {
	if c, ok := ctx.Value(clientKey{}).(*client); ok {
		c.calls |= 1 << op
	}
}

// db adapts a Store to go-ycsb's DB: one value per record holding every
// field; Update reads, merges and writes back (as go-ycsb's own Badger and
// Pebble bindings do). The table name is ignored: one table per run.
type db struct{ s Store }

var _ ycsb.DB = db{}

func (d db) Close() error { return nil } // the runner closes the Store

// InitThread gives the client goroutine its own record of operations.
func (d db) InitThread(ctx context.Context, _, _ int) context.Context {
	return context.WithValue(ctx, clientKey{}, &client{})
}

func (d db) CleanupThread(context.Context) {}

func (d db) Read(ctx context.Context, _ string, key string, fields []string) (map[string][]byte, error) {
	called(ctx, OpRead)
	v, err := d.s.Get([]byte(key))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", key, err)
	}
	m := make(map[string][]byte, 10)
	return m, decodeRecord(m, v, fields)
}

func (d db) Scan(ctx context.Context, _ string, start string, count int, fields []string) ([]map[string][]byte, error) {
	called(ctx, OpScan)
	var out []map[string][]byte
	err := d.s.Scan([]byte(start), count, func(_, v []byte) error {
		m := make(map[string][]byte, 10)
		out = append(out, m)
		return decodeRecord(m, v, fields)
	})
	return out, err
}

func (d db) Update(ctx context.Context, _ string, key string, values map[string][]byte) error {
	called(ctx, OpUpdate)
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

func (d db) Insert(ctx context.Context, _ string, key string, values map[string][]byte) error {
	called(ctx, OpInsert)
	return d.s.Put([]byte(key), encodeRecord(nil, values))
}

func (d db) Delete(_ context.Context, _ string, key string) error { return d.s.Delete([]byte(key)) }
