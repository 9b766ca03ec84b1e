package protocol

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// SendFile passes f's descriptor over sock, the parent's end of a
// SocketPair; the worker receives it with RecvFile.
func SendFile(sock, f *os.File) error {
	rc, err := sock.SyscallConn()
	if err != nil {
		return fmt.Errorf("pass context: %w", err)
	}
	var sendErr error
	err = rc.Write(func(fd uintptr) bool {
		sendErr = unix.Sendmsg(int(fd), []byte{0}, unix.UnixRights(int(f.Fd())), nil, unix.MSG_NOSIGNAL)
		return sendErr != unix.EAGAIN
	})
	if err == nil {
		err = sendErr
	}
	if err != nil {
		return fmt.Errorf("pass context: %w", err)
	}
	return nil
}

// RecvFile receives one descriptor from the socket sock, close-on-exec
// where the system can make it so as it arrives.
func RecvFile(sock int) (int, error) {
	buf := make([]byte, 1)
	oob := make([]byte, unix.CmsgSpace(4))
	_, oobn, _, _, err := unix.Recvmsg(sock, buf, oob, recvFlags)
	if err != nil {
		return -1, fmt.Errorf("receive context: %w", err)
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return -1, fmt.Errorf("receive context: no descriptor came (%v)", err)
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return -1, fmt.Errorf("receive context: no descriptor came (%v)", err)
	}
	return fds[0], nil
}
