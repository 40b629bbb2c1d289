// Package dataset generates the benchmark data at run time, deterministically:
// TPC-H lineitem through go-tpc's dbgen, synthetic time series with fixed
// seeds, and the key sets of the block seek benchmarks.
//
// TPC notice: the lineitem data is produced by go-tpc's port of the TPC-H
// dbgen tool (TPC Benchmark H, Copyright Transaction Processing Performance
// Council). It is generated in memory at run time and never committed;
// results computed from it are not TPC-H results and may not be called so.
package dataset

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/pingcap/go-tpc/tpch/dbgen"

	"github.com/kvenc/kvenc/bench/internal/quiet"
)

// LineitemOrders is the number of orders of the "scale 0.1 prefix": SF1
// generation stopped after the first 150,000 orders (600,572 rows).
const LineitemOrders = 150_000

// Lineitem is one row. Money is in cents, discount and tax in hundredths,
// dates in days since 1970-01-01. The row holds no pointer (its text
// columns live in the set's Text), so a slice of 600k rows costs the garbage
// collector nothing to scan: testing.Benchmark collects garbage before every
// run, and scanning ~100 MB of string headers each time doubled the run.
type Lineitem struct {
	OrderKey, PartKey, SuppKey, LineNumber int64
	Quantity, ExtendedPrice                int64
	Discount, Tax                          int64
	ShipDate, CommitDate, ReceiptDate      int64
	ReturnFlag, LineStatus                 byte
	text                                   [2]uint32 // ShipInstruct|ShipMode|Comment in LineitemSet.text
}

// LineitemSet is the generated table.
type LineitemSet struct {
	Rows []Lineitem
	text []byte
}

// Text returns row i's "shipinstruct|shipmode|comment" (aliases the set).
func (s *LineitemSet) Text(i int) []byte {
	t := s.Rows[i].text
	return s.text[t[0]:t[1]]
}

// IntColumns names the integer columns in the order IntColumn returns them.
var IntColumns = []string{
	"orderkey", "partkey", "suppkey", "linenumber", "quantity",
	"extendedprice", "discount", "tax", "shipdate", "commitdate", "receiptdate",
}

// IntColumn returns column c (an index into IntColumns) of every row.
func IntColumn(rows []Lineitem, c int) []int64 {
	out := make([]int64, len(rows))
	for i := range rows {
		r := &rows[i]
		out[i] = [...]int64{r.OrderKey, r.PartKey, r.SuppKey, r.LineNumber, r.Quantity,
			r.ExtendedPrice, r.Discount, r.Tax, r.ShipDate, r.CommitDate, r.ReceiptDate}[c]
	}
	return out
}

var (
	genMu    sync.Mutex // dbgen keeps its state in package globals
	genCache = map[int]*LineitemSet{}
)

var errEnough = errors.New("dataset: enough orders")

// LineitemRows returns the lineitem rows of the first orders orders of
// TPC-H SF1 (LineitemOrders gives the 0.1 prefix). Results are cached per
// process; callers must not modify them.
func LineitemRows(orders int) (*LineitemSet, error) {
	genMu.Lock()
	defer genMu.Unlock()
	if set, ok := genCache[orders]; ok {
		return set, nil
	}
	l := &lineLoader{want: orders, set: &LineitemSet{Rows: make([]Lineitem, 0, orders*4+orders/8)}}
	err := quiet.Stdout(func() error { // dbgen prints "generating ..." lines
		dbgen.InitDbGen(1)
		return dbgen.DbGen(map[dbgen.Table]dbgen.Loader{dbgen.TLine: l}, []dbgen.Table{dbgen.TLine})
	})
	if err != nil && l.seen < orders {
		return nil, fmt.Errorf("dataset: lineitem: %w", err)
	}
	genCache[orders] = l.set
	return l.set, nil
}

// lineLoader collects rows and stops generation after want orders by
// returning errEnough (dbgen stops at the first loader error).
type lineLoader struct {
	want, seen int
	set        *LineitemSet
}

func (l *lineLoader) Load(item any) error {
	if l.seen >= l.want {
		return errEnough
	}
	o := item.(*dbgen.Order)
	s := l.set
	for i := range o.Lines {
		li := &o.Lines[i]
		start := uint32(len(s.text))
		s.text = append(s.text, li.ShipInstruct...)
		s.text = append(s.text, '|')
		s.text = append(s.text, li.ShipMode...)
		s.text = append(s.text, '|')
		s.text = append(s.text, li.Comment...)
		s.Rows = append(s.Rows, Lineitem{
			OrderKey: int64(li.OKey), PartKey: int64(li.PartKey), SuppKey: int64(li.SuppKey),
			LineNumber: int64(li.LCnt), Quantity: int64(li.Quantity), ExtendedPrice: int64(li.EPrice),
			Discount: int64(li.Discount), Tax: int64(li.Tax),
			ShipDate: days(li.SDate), CommitDate: days(li.CDate), ReceiptDate: days(li.RDate),
			ReturnFlag: li.RFlag, LineStatus: li.LStatus,
			text: [2]uint32{start, uint32(len(s.text))},
		})
	}
	l.seen++
	return nil
}

func (l *lineLoader) Flush() error { return nil }

// days turns dbgen's "1996-03-13" into days since 1970-01-01 (-1 if it does
// not parse, which dbgen never produces).
func days(s string) int64 {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return -1
	}
	return t.Unix() / 86400
}
