package gen

// For the hygiene corpus (hygiene_test.go): the packages and frame members
// generated code introduces.
var (
	GenPackages  = genPackages
	FrameMembers = frameMembers
	// PredeclaredUsed are the predeclared identifiers generated code uses.
	PredeclaredUsed = predeclaredUsed
)
