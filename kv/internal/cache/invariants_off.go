//go:build !invariants

package cache

// Invariants is true under -tags invariants (make test sets it): released
// buffers are poisoned and every access to a block read through a pooled
// buffer checks that the buffer is still live, panicking if not.
const Invariants = false
