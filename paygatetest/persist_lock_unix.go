//go:build unix

package paygatetest

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes an exclusive lock of f without waiting: false when
// another open file holds it. flock(2) locks go with the open file, so a
// second sandbox in the same process is refused too.
func tryLock(f *os.File) (bool, error) {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}
