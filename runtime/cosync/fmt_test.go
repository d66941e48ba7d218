package cosync_test

import "fmt"

var fmtSscanf = fmt.Sscanf
