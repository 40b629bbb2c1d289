//go:build invariants

package shapeshift

// invariants is true under -tags invariants (make test sets it): every
// float column is decoded right after it is encoded and compared bit for
// bit with its input, panicking on a difference (a bug, never bad input).
const invariants = true
