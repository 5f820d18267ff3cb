// Hostile: before the bot's main (Go runs every init first) it tries to read the server's
// files, to reach the network and to start a thousand processes, then the bot plays
// legally. targets.txt holds the test's own targets: a path, or "host port" to dial.
// It prints to stderr what it got: READ, CONNECTED, STARTED or "cannot ...".
package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"time"
)

func init() {
	targets := []string{"/etc/shadow", "/etc/passwd", "/proc/1/root/etc/shadow", "example.com 80"}
	if extra, err := os.ReadFile("targets.txt"); err == nil {
		targets = append(targets, strings.Split(strings.TrimSpace(string(extra)), "\n")...)
	}
	for _, target := range targets {
		if host, port, ok := strings.Cut(target, " "); ok {
			conn, err := net.DialTimeout("tcp", net.JoinHostPort(host, port), time.Second)
			if err != nil {
				fmt.Fprintf(os.Stderr, "cannot connect to %s:%s: %v\n", host, port, err)
			} else {
				fmt.Fprintf(os.Stderr, "CONNECTED %s:%s\n", host, port)
				conn.Close()
			}
		} else if data, err := os.ReadFile(target); err != nil {
			fmt.Fprintf(os.Stderr, "cannot read %s: %v\n", target, err)
		} else {
			fmt.Fprintf(os.Stderr, "READ %s: %q\n", target, data)
		}
	}
	var started []*exec.Cmd
	for i := 0; i < 1000; i++ {
		cmd := exec.Command("/bin/sleep", "30")
		if err := cmd.Start(); err != nil {
			fmt.Fprintf(os.Stderr, "cannot start process %d: %v\n", i, err)
			break
		}
		started = append(started, cmd)
	}
	if len(started) == 1000 {
		fmt.Fprintln(os.Stderr, "STARTED 1000 processes")
	}
	for _, cmd := range started {
		cmd.Process.Kill()
		cmd.Wait()
	}
}
