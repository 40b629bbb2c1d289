package mvcc_test

import (
	"fmt"

	"github.com/kvenc/kvenc/mvcc"
)

func Example() {
	tr := mvcc.NewTracker(10) // the last seq recovered from disk was 10

	a, b := tr.Begin(), tr.Begin()
	fmt.Println("seqs:", a.Seq(), b.Seq())

	tr.Complete(b) // b finishes first...
	fmt.Println("read point after b:", tr.ReadPoint())
	tr.Complete(a) // ...but becomes visible only with a
	fmt.Println("read point after a:", tr.ReadPoint())

	snap := tr.Snapshot()
	tr.CompleteAndWait(tr.Begin())
	fmt.Println("snapshot:", snap.Seq(), "read point:", tr.ReadPoint(), "oldest:", tr.OldestSnapshot())
	snap.Release()
	fmt.Println("oldest after release:", tr.OldestSnapshot())
	// Output:
	// seqs: 11 12
	// read point after b: 10
	// read point after a: 12
	// snapshot: 12 read point: 13 oldest: 12
	// oldest after release: 13
}
