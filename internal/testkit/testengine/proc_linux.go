package testengine

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// start starts cmd so that it is killed when the test binary dies, even
// by SIGKILL (go test -timeout, Ctrl-C): Linux sends the parent-death
// signal when the thread that forked the child ends, not the process, so
// every server is forked from one thread that lives as long as the binary.
func start(cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	// Go sets it after changing the credentials, which would clear it.
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	done := make(chan error, 1)
	spawner() <- func() { done <- cmd.Start() }
	return <-done
}

// spawner runs functions on one OS thread that never ends.
var spawner = sync.OnceValue(func() chan<- func() {
	ch := make(chan func())
	go func() {
		runtime.LockOSThread() // never unlocked: the thread lives on
		for f := range ch {
			f()
		}
	}()
	return ch
})

// runAs makes cmd run as the user uid, gid.
func runAs(cmd *exec.Cmd, uid, gid int) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	return nil
}
