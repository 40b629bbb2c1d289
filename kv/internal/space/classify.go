package space

import (
	"errors"
	"fmt"
	"syscall"
)

// Classify returns err wrapped with ErrNoSpace when it is the
// filesystem's "no space" (ENOSPC) or "quota exceeded" (EDQUOT), and err
// itself otherwise: other I/O errors (EIO, EROFS) keep their errno, which
// errors.Is finds (errors.Is(err, syscall.EIO)). nil stays nil.
func Classify(err error) error {
	if err == nil || errors.Is(err, ErrNoSpace) {
		return err
	}
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return fmt.Errorf("%w: %w", ErrNoSpace, err)
	}
	return err
}
