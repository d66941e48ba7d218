// Code ported from $GOROOT/test/rangegen.go by portgen/rangegen.go; edit that.

package rangegen

import (
	"fmt"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

func yield2(yield func(int) bool) { _ = yield(1) && yield(2) }

type output struct {
	trace []any
}

func (o *output) log(x any) {
	o.trace = append(o.trace, x)
}

func (o *output) log1(x, y any) {
	o.trace = append(o.trace, x, y)
}

// Run runs every generated function with every exit code.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	for c := range 32 {
		o := &output{}
		ret := testFunc1_0(co, o, c)
		t.Printf("testFunc1_0(%d) = %d %v", c, ret, fmt.Sprint(o.trace...))
	}
	for c := range 63 {
		o := &output{}
		ret := testFunc1_1(co, o, c)
		t.Printf("testFunc1_1(%d) = %d %v", c, ret, fmt.Sprint(o.trace...))
	}
	for c := range 76 {
		o := &output{}
		ret := testFunc2_0(co, o, c)
		t.Printf("testFunc2_0(%d) = %d %v", c, ret, fmt.Sprint(o.trace...))
	}
	for c := range 151 {
		o := &output{}
		ret := testFunc2_1(co, o, c)
		t.Printf("testFunc2_1(%d) = %d %v", c, ret, fmt.Sprint(o.trace...))
	}
	for c := range 140 {
		o := &output{}
		ret := testFunc3_0(co, o, c)
		t.Printf("testFunc3_0(%d) = %d %v", c, ret, fmt.Sprint(o.trace...))
	}
	for c := range 279 {
		o := &output{}
		ret := testFunc3_1(co, o, c)
		t.Printf("testFunc3_1(%d) = %d %v", c, ret, fmt.Sprint(o.trace...))
	}
}

//co:stackless
func testFunc1_0(co *stackful.Co, o *output, code int) int {
	dfr := 0
	_ = dfr
	o.log(`top0`)
	l0a := 0
	goto L0a
L0a:
	o.log(`L0a`)
	if l0a++; l0a >= 2 {
		o.log(`loop L0a`)
		return -1
	}
	l0for := 0
	goto L0for
L0for:
	for f := 0; f < 1; f++ {
		o.log(`L0for`)
		if l0for++; l0for >= 2 {
			o.log(`loop L0for`)
			return -1
		}
		l0sw := 0
		goto L0sw
	L0sw:
		switch {
		default:
			o.log(`L0sw`)
			if l0sw++; l0sw >= 2 {
				o.log(`loop L0sw`)
				return -1
			}
			l0sel := 0
			goto L0sel
		L0sel:
			switch {
			default:
				o.log(`L0sel`)
				if l0sel++; l0sel >= 2 {
					o.log(`loop L0sel`)
					return -1
				}
				l0 := 0
				goto L0
			L0:
				for i0 := range yield2 {
					o.log1(`L0 top`, i0)
					co.Gosched()
					if l0++; l0 >= 4 {
						o.log(`loop L0`)
						return -1
					}
					if code == 1 {
						break
					}
					if code == 2 {
						continue
					}
					switch {
					case code == 3:
						continue
					}
					if code == 4 {
						return 4
					}
					if code == 5 {
						switch {
						default:
							break
						}
					}
					if code == 6 {
						switch {
						default:
							break
						}
					}
					if code == 7 {
						dfr++
						defer o.log1(`defer 7`, dfr)
					}
					o.log(`top1`)
					l1a := 0
					goto L1a
				L1a:
					o.log(`L1a`)
					if l1a++; l1a >= 2 {
						o.log(`loop L1a`)
						return -1
					}
					l1for := 0
					goto L1for
				L1for:
					for f := 0; f < 1; f++ {
						o.log(`L1for`)
						if l1for++; l1for >= 2 {
							o.log(`loop L1for`)
							return -1
						}
						l1sw := 0
						goto L1sw
					L1sw:
						switch {
						default:
							o.log(`L1sw`)
							if l1sw++; l1sw >= 2 {
								o.log(`loop L1sw`)
								return -1
							}
							l1sel := 0
							goto L1sel
						L1sel:
							switch {
							default:
								o.log(`L1sel`)
								if l1sel++; l1sel >= 2 {
									o.log(`loop L1sel`)
									return -1
								}
								l1 := 0
								goto L1
							L1:
								for i1 := range yield2 {
									o.log1(`L1 top`, i1)
									co.Gosched()
									if l1++; l1 >= 4 {
										o.log(`loop L1`)
										return -1
									}
									if code == 8 {
										break
									}
									if code == 9 {
										continue
									}
									switch {
									case code == 10:
										continue
									}
									if code == 11 {
										return 11
									}
									if code == 12 {
										switch {
										default:
											break
										}
									}
									if code == 13 {
										switch {
										default:
											break
										}
									}
									if code == 14 {
										dfr++
										defer o.log1(`defer 14`, dfr)
									}
									if code == 15 {
										break L1
									}
									if code == 16 {
										switch {
										default:
											break L1
										}
									}
									if code == 17 {
										break L1
									}
									if code == 18 {
										break L1sw
									}
									if code == 19 {
										break L1sel
									}
									if code == 20 {
										break L1for
									}
									if code == 21 {
										continue L1for
									}
									if code == 22 {
										goto L1a
									}
									if code == 23 {
										goto L1
									}
									if code == 24 {
										goto L1b
									}
									o.log(`L1 bot`)
								}
								o.log(`L1sel bot`)
							}
							o.log(`L1sw bot`)
						}
						o.log(`L1for bot`)
					}
					o.log(`done1`)
					goto L1b
				L1b:
					o.log(`L1b`)
					if code == 25 {
						break
					}
					if code == 26 {
						continue
					}
					switch {
					case code == 27:
						continue
					}
					if code == 28 {
						return 28
					}
					if code == 29 {
						switch {
						default:
							break
						}
					}
					if code == 30 {
						switch {
						default:
							break
						}
					}
					if code == 31 {
						dfr++
						defer o.log1(`defer 31`, dfr)
					}
					o.log(`L0 bot`)
				}
				o.log(`L0sel bot`)
			}
			o.log(`L0sw bot`)
		}
		o.log(`L0for bot`)
	}
	o.log(`done0`)
	goto L0b
L0b:
	o.log(`L0b`)
	return 0
}

//co:stackless
func testFunc1_1(co *stackful.Co, o *output, code int) int {
	dfr := 0
	_ = dfr
	o.log(`top0`)
	l0a := 0
	goto L0a
L0a:
	o.log(`L0a`)
	if l0a++; l0a >= 2 {
		o.log(`loop L0a`)
		return -1
	}
	l0for := 0
	goto L0for
L0for:
	for f := 0; f < 1; f++ {
		o.log(`L0for`)
		if l0for++; l0for >= 2 {
			o.log(`loop L0for`)
			return -1
		}
		l0sw := 0
		goto L0sw
	L0sw:
		switch {
		default:
			o.log(`L0sw`)
			if l0sw++; l0sw >= 2 {
				o.log(`loop L0sw`)
				return -1
			}
			l0sel := 0
			goto L0sel
		L0sel:
			switch {
			default:
				o.log(`L0sel`)
				if l0sel++; l0sel >= 2 {
					o.log(`loop L0sel`)
					return -1
				}
				l0 := 0
				goto L0
			L0:
				for i0 := range yield2 {
					o.log1(`L0 top`, i0)
					co.Gosched()
					if l0++; l0 >= 4 {
						o.log(`loop L0`)
						return -1
					}
					if code == 1 {
						break
					}
					if code == 2 {
						continue
					}
					switch {
					case code == 3:
						continue
					}
					if code == 4 {
						return 4
					}
					if code == 5 {
						switch {
						default:
							break
						}
					}
					if code == 6 {
						switch {
						default:
							break
						}
					}
					if code == 7 {
						dfr++
						defer o.log1(`defer 7`, dfr)
					}
					o.log(`top1`)
					l1a := 0
					goto L1a
				L1a:
					o.log(`L1a`)
					if l1a++; l1a >= 2 {
						o.log(`loop L1a`)
						return -1
					}
					l1for := 0
					goto L1for
				L1for:
					for f := 0; f < 1; f++ {
						o.log(`L1for`)
						if l1for++; l1for >= 2 {
							o.log(`loop L1for`)
							return -1
						}
						l1sw := 0
						goto L1sw
					L1sw:
						switch {
						default:
							o.log(`L1sw`)
							if l1sw++; l1sw >= 2 {
								o.log(`loop L1sw`)
								return -1
							}
							l1sel := 0
							goto L1sel
						L1sel:
							switch {
							default:
								o.log(`L1sel`)
								if l1sel++; l1sel >= 2 {
									o.log(`loop L1sel`)
									return -1
								}
								l1 := 0
								goto L1
							L1:
								for i1 := range yield2 {
									o.log1(`L1 top`, i1)
									co.Gosched()
									if l1++; l1 >= 4 {
										o.log(`loop L1`)
										return -1
									}
									if code == 8 {
										break
									}
									if code == 9 {
										continue
									}
									switch {
									case code == 10:
										continue
									}
									if code == 11 {
										return 11
									}
									if code == 12 {
										switch {
										default:
											break
										}
									}
									if code == 13 {
										switch {
										default:
											break
										}
									}
									if code == 14 {
										dfr++
										defer o.log1(`defer 14`, dfr)
									}
									if code == 15 {
										break L1
									}
									if code == 16 {
										switch {
										default:
											break L1
										}
									}
									if code == 17 {
										break L1
									}
									if code == 18 {
										break L1sw
									}
									if code == 19 {
										break L1sel
									}
									if code == 20 {
										break L1for
									}
									if code == 21 {
										continue L1for
									}
									if code == 22 {
										goto L1a
									}
									if code == 23 {
										goto L1
									}
									if code == 24 {
										goto L1b
									}
									o.log(`L1 bot`)
								}
								o.log(`L1sel bot`)
							}
							o.log(`L1sw bot`)
						}
						o.log(`L1for bot`)
					}
					o.log(`done1`)
					goto L1b
				L1b:
					o.log(`L1b`)
					if code == 25 {
						break
					}
					if code == 26 {
						continue
					}
					switch {
					case code == 27:
						continue
					}
					if code == 28 {
						return 28
					}
					if code == 29 {
						switch {
						default:
							break
						}
					}
					if code == 30 {
						switch {
						default:
							break
						}
					}
					if code == 31 {
						dfr++
						defer o.log1(`defer 31`, dfr)
					}
					o.log(`L0 bot`)
				}
				o.log(`L0sel bot`)
			}
			o.log(`L0sw bot`)
		}
		o.log(`L0for bot`)
	}
	o.log(`done0`)
	goto L0b
L0b:
	o.log(`L0b`)
	o.log(`top0R`)
	l0Ra := 0
	goto L0Ra
L0Ra:
	o.log(`L0Ra`)
	if l0Ra++; l0Ra >= 2 {
		o.log(`loop L0Ra`)
		return -1
	}
	l0Rfor := 0
	goto L0Rfor
L0Rfor:
	for f := 0; f < 1; f++ {
		o.log(`L0Rfor`)
		if l0Rfor++; l0Rfor >= 2 {
			o.log(`loop L0Rfor`)
			return -1
		}
		l0Rsw := 0
		goto L0Rsw
	L0Rsw:
		switch {
		default:
			o.log(`L0Rsw`)
			if l0Rsw++; l0Rsw >= 2 {
				o.log(`loop L0Rsw`)
				return -1
			}
			l0Rsel := 0
			goto L0Rsel
		L0Rsel:
			switch {
			default:
				o.log(`L0Rsel`)
				if l0Rsel++; l0Rsel >= 2 {
					o.log(`loop L0Rsel`)
					return -1
				}
				l0R := 0
				goto L0R
			L0R:
				for i0R := range yield2 {
					o.log1(`L0R top`, i0R)
					co.Gosched()
					if l0R++; l0R >= 4 {
						o.log(`loop L0R`)
						return -1
					}
					if code == 32 {
						break
					}
					if code == 33 {
						continue
					}
					switch {
					case code == 34:
						continue
					}
					if code == 35 {
						return 35
					}
					if code == 36 {
						switch {
						default:
							break
						}
					}
					if code == 37 {
						switch {
						default:
							break
						}
					}
					if code == 38 {
						dfr++
						defer o.log1(`defer 38`, dfr)
					}
					o.log(`top1R`)
					l1Ra := 0
					goto L1Ra
				L1Ra:
					o.log(`L1Ra`)
					if l1Ra++; l1Ra >= 2 {
						o.log(`loop L1Ra`)
						return -1
					}
					l1Rfor := 0
					goto L1Rfor
				L1Rfor:
					for f := 0; f < 1; f++ {
						o.log(`L1Rfor`)
						if l1Rfor++; l1Rfor >= 2 {
							o.log(`loop L1Rfor`)
							return -1
						}
						l1Rsw := 0
						goto L1Rsw
					L1Rsw:
						switch {
						default:
							o.log(`L1Rsw`)
							if l1Rsw++; l1Rsw >= 2 {
								o.log(`loop L1Rsw`)
								return -1
							}
							l1Rsel := 0
							goto L1Rsel
						L1Rsel:
							switch {
							default:
								o.log(`L1Rsel`)
								if l1Rsel++; l1Rsel >= 2 {
									o.log(`loop L1Rsel`)
									return -1
								}
								l1R := 0
								goto L1R
							L1R:
								for i1R := range yield2 {
									o.log1(`L1R top`, i1R)
									co.Gosched()
									if l1R++; l1R >= 4 {
										o.log(`loop L1R`)
										return -1
									}
									if code == 39 {
										break
									}
									if code == 40 {
										continue
									}
									switch {
									case code == 41:
										continue
									}
									if code == 42 {
										return 42
									}
									if code == 43 {
										switch {
										default:
											break
										}
									}
									if code == 44 {
										switch {
										default:
											break
										}
									}
									if code == 45 {
										dfr++
										defer o.log1(`defer 45`, dfr)
									}
									if code == 46 {
										break L1R
									}
									if code == 47 {
										switch {
										default:
											break L1R
										}
									}
									if code == 48 {
										break L1R
									}
									if code == 49 {
										break L1Rsw
									}
									if code == 50 {
										break L1Rsel
									}
									if code == 51 {
										break L1Rfor
									}
									if code == 52 {
										continue L1Rfor
									}
									if code == 53 {
										goto L1Ra
									}
									if code == 54 {
										goto L1R
									}
									if code == 55 {
										goto L1Rb
									}
									o.log(`L1R bot`)
								}
								o.log(`L1Rsel bot`)
							}
							o.log(`L1Rsw bot`)
						}
						o.log(`L1Rfor bot`)
					}
					o.log(`done1R`)
					goto L1Rb
				L1Rb:
					o.log(`L1Rb`)
					if code == 56 {
						break
					}
					if code == 57 {
						continue
					}
					switch {
					case code == 58:
						continue
					}
					if code == 59 {
						return 59
					}
					if code == 60 {
						switch {
						default:
							break
						}
					}
					if code == 61 {
						switch {
						default:
							break
						}
					}
					if code == 62 {
						dfr++
						defer o.log1(`defer 62`, dfr)
					}
					o.log(`L0R bot`)
				}
				o.log(`L0Rsel bot`)
			}
			o.log(`L0Rsw bot`)
		}
		o.log(`L0Rfor bot`)
	}
	o.log(`done0R`)
	goto L0Rb
L0Rb:
	o.log(`L0Rb`)
	return 0
}

//co:stackless
func testFunc2_0(co *stackful.Co, o *output, code int) int {
	dfr := 0
	_ = dfr
	o.log(`top0`)
	l0a := 0
	goto L0a
L0a:
	o.log(`L0a`)
	if l0a++; l0a >= 2 {
		o.log(`loop L0a`)
		return -1
	}
	l0for := 0
	goto L0for
L0for:
	for f := 0; f < 1; f++ {
		o.log(`L0for`)
		if l0for++; l0for >= 2 {
			o.log(`loop L0for`)
			return -1
		}
		l0sw := 0
		goto L0sw
	L0sw:
		switch {
		default:
			o.log(`L0sw`)
			if l0sw++; l0sw >= 2 {
				o.log(`loop L0sw`)
				return -1
			}
			l0sel := 0
			goto L0sel
		L0sel:
			switch {
			default:
				o.log(`L0sel`)
				if l0sel++; l0sel >= 2 {
					o.log(`loop L0sel`)
					return -1
				}
				l0 := 0
				goto L0
			L0:
				for i0 := range yield2 {
					o.log1(`L0 top`, i0)
					co.Gosched()
					if l0++; l0 >= 4 {
						o.log(`loop L0`)
						return -1
					}
					if code == 1 {
						break
					}
					if code == 2 {
						continue
					}
					switch {
					case code == 3:
						continue
					}
					if code == 4 {
						return 4
					}
					if code == 5 {
						switch {
						default:
							break
						}
					}
					if code == 6 {
						switch {
						default:
							break
						}
					}
					if code == 7 {
						dfr++
						defer o.log1(`defer 7`, dfr)
					}
					o.log(`top1`)
					l1a := 0
					goto L1a
				L1a:
					o.log(`L1a`)
					if l1a++; l1a >= 2 {
						o.log(`loop L1a`)
						return -1
					}
					l1for := 0
					goto L1for
				L1for:
					for f := 0; f < 1; f++ {
						o.log(`L1for`)
						if l1for++; l1for >= 2 {
							o.log(`loop L1for`)
							return -1
						}
						l1sw := 0
						goto L1sw
					L1sw:
						switch {
						default:
							o.log(`L1sw`)
							if l1sw++; l1sw >= 2 {
								o.log(`loop L1sw`)
								return -1
							}
							l1sel := 0
							goto L1sel
						L1sel:
							switch {
							default:
								o.log(`L1sel`)
								if l1sel++; l1sel >= 2 {
									o.log(`loop L1sel`)
									return -1
								}
								l1 := 0
								goto L1
							L1:
								for i1 := range yield2 {
									o.log1(`L1 top`, i1)
									co.Gosched()
									if l1++; l1 >= 4 {
										o.log(`loop L1`)
										return -1
									}
									if code == 8 {
										break
									}
									if code == 9 {
										continue
									}
									switch {
									case code == 10:
										continue
									}
									if code == 11 {
										return 11
									}
									if code == 12 {
										switch {
										default:
											break
										}
									}
									if code == 13 {
										switch {
										default:
											break
										}
									}
									if code == 14 {
										dfr++
										defer o.log1(`defer 14`, dfr)
									}
									if code == 15 {
										break L1
									}
									if code == 16 {
										switch {
										default:
											break L1
										}
									}
									if code == 17 {
										break L1
									}
									if code == 18 {
										break L1sw
									}
									if code == 19 {
										break L1sel
									}
									if code == 20 {
										break L1for
									}
									if code == 21 {
										continue L1for
									}
									if code == 22 {
										goto L1a
									}
									if code == 23 {
										goto L1
									}
									if code == 24 {
										goto L1b
									}
									o.log(`top2`)
									l2a := 0
									goto L2a
								L2a:
									o.log(`L2a`)
									if l2a++; l2a >= 2 {
										o.log(`loop L2a`)
										return -1
									}
									l2for := 0
									goto L2for
								L2for:
									for f := 0; f < 1; f++ {
										o.log(`L2for`)
										if l2for++; l2for >= 2 {
											o.log(`loop L2for`)
											return -1
										}
										l2sw := 0
										goto L2sw
									L2sw:
										switch {
										default:
											o.log(`L2sw`)
											if l2sw++; l2sw >= 2 {
												o.log(`loop L2sw`)
												return -1
											}
											l2sel := 0
											goto L2sel
										L2sel:
											switch {
											default:
												o.log(`L2sel`)
												if l2sel++; l2sel >= 2 {
													o.log(`loop L2sel`)
													return -1
												}
												l2 := 0
												goto L2
											L2:
												for i2 := range yield2 {
													o.log1(`L2 top`, i2)
													co.Gosched()
													if l2++; l2 >= 4 {
														o.log(`loop L2`)
														return -1
													}
													if code == 25 {
														break
													}
													if code == 26 {
														continue
													}
													switch {
													case code == 27:
														continue
													}
													if code == 28 {
														return 28
													}
													if code == 29 {
														switch {
														default:
															break
														}
													}
													if code == 30 {
														switch {
														default:
															break
														}
													}
													if code == 31 {
														dfr++
														defer o.log1(`defer 31`, dfr)
													}
													if code == 32 {
														break L2
													}
													if code == 33 {
														switch {
														default:
															break L2
														}
													}
													if code == 34 {
														break L2
													}
													if code == 35 {
														break L2sw
													}
													if code == 36 {
														break L2sel
													}
													if code == 37 {
														break L2for
													}
													if code == 38 {
														continue L2for
													}
													if code == 39 {
														goto L2a
													}
													if code == 40 {
														goto L2
													}
													if code == 41 {
														goto L2b
													}
													if code == 42 {
														break L1
													}
													if code == 43 {
														switch {
														default:
															break L1
														}
													}
													if code == 44 {
														break L1
													}
													if code == 45 {
														break L1sw
													}
													if code == 46 {
														break L1sel
													}
													if code == 47 {
														break L1for
													}
													if code == 48 {
														continue L1for
													}
													if code == 49 {
														goto L1a
													}
													if code == 50 {
														goto L1
													}
													if code == 51 {
														goto L1b
													}
													o.log(`L2 bot`)
												}
												o.log(`L2sel bot`)
											}
											o.log(`L2sw bot`)
										}
										o.log(`L2for bot`)
									}
									o.log(`done2`)
									goto L2b
								L2b:
									o.log(`L2b`)
									if code == 52 {
										break
									}
									if code == 53 {
										continue
									}
									switch {
									case code == 54:
										continue
									}
									if code == 55 {
										return 55
									}
									if code == 56 {
										switch {
										default:
											break
										}
									}
									if code == 57 {
										switch {
										default:
											break
										}
									}
									if code == 58 {
										dfr++
										defer o.log1(`defer 58`, dfr)
									}
									if code == 59 {
										break L1
									}
									if code == 60 {
										switch {
										default:
											break L1
										}
									}
									if code == 61 {
										break L1
									}
									if code == 62 {
										break L1sw
									}
									if code == 63 {
										break L1sel
									}
									if code == 64 {
										break L1for
									}
									if code == 65 {
										continue L1for
									}
									if code == 66 {
										goto L1a
									}
									if code == 67 {
										goto L1
									}
									if code == 68 {
										goto L1b
									}
									o.log(`L1 bot`)
								}
								o.log(`L1sel bot`)
							}
							o.log(`L1sw bot`)
						}
						o.log(`L1for bot`)
					}
					o.log(`done1`)
					goto L1b
				L1b:
					o.log(`L1b`)
					if code == 69 {
						break
					}
					if code == 70 {
						continue
					}
					switch {
					case code == 71:
						continue
					}
					if code == 72 {
						return 72
					}
					if code == 73 {
						switch {
						default:
							break
						}
					}
					if code == 74 {
						switch {
						default:
							break
						}
					}
					if code == 75 {
						dfr++
						defer o.log1(`defer 75`, dfr)
					}
					o.log(`L0 bot`)
				}
				o.log(`L0sel bot`)
			}
			o.log(`L0sw bot`)
		}
		o.log(`L0for bot`)
	}
	o.log(`done0`)
	goto L0b
L0b:
	o.log(`L0b`)
	return 0
}

//co:stackless
func testFunc2_1(co *stackful.Co, o *output, code int) int {
	dfr := 0
	_ = dfr
	o.log(`top0`)
	l0a := 0
	goto L0a
L0a:
	o.log(`L0a`)
	if l0a++; l0a >= 2 {
		o.log(`loop L0a`)
		return -1
	}
	l0for := 0
	goto L0for
L0for:
	for f := 0; f < 1; f++ {
		o.log(`L0for`)
		if l0for++; l0for >= 2 {
			o.log(`loop L0for`)
			return -1
		}
		l0sw := 0
		goto L0sw
	L0sw:
		switch {
		default:
			o.log(`L0sw`)
			if l0sw++; l0sw >= 2 {
				o.log(`loop L0sw`)
				return -1
			}
			l0sel := 0
			goto L0sel
		L0sel:
			switch {
			default:
				o.log(`L0sel`)
				if l0sel++; l0sel >= 2 {
					o.log(`loop L0sel`)
					return -1
				}
				l0 := 0
				goto L0
			L0:
				for i0 := range yield2 {
					o.log1(`L0 top`, i0)
					co.Gosched()
					if l0++; l0 >= 4 {
						o.log(`loop L0`)
						return -1
					}
					if code == 1 {
						break
					}
					if code == 2 {
						continue
					}
					switch {
					case code == 3:
						continue
					}
					if code == 4 {
						return 4
					}
					if code == 5 {
						switch {
						default:
							break
						}
					}
					if code == 6 {
						switch {
						default:
							break
						}
					}
					if code == 7 {
						dfr++
						defer o.log1(`defer 7`, dfr)
					}
					o.log(`top1`)
					l1a := 0
					goto L1a
				L1a:
					o.log(`L1a`)
					if l1a++; l1a >= 2 {
						o.log(`loop L1a`)
						return -1
					}
					l1for := 0
					goto L1for
				L1for:
					for f := 0; f < 1; f++ {
						o.log(`L1for`)
						if l1for++; l1for >= 2 {
							o.log(`loop L1for`)
							return -1
						}
						l1sw := 0
						goto L1sw
					L1sw:
						switch {
						default:
							o.log(`L1sw`)
							if l1sw++; l1sw >= 2 {
								o.log(`loop L1sw`)
								return -1
							}
							l1sel := 0
							goto L1sel
						L1sel:
							switch {
							default:
								o.log(`L1sel`)
								if l1sel++; l1sel >= 2 {
									o.log(`loop L1sel`)
									return -1
								}
								l1 := 0
								goto L1
							L1:
								for i1 := range yield2 {
									o.log1(`L1 top`, i1)
									co.Gosched()
									if l1++; l1 >= 4 {
										o.log(`loop L1`)
										return -1
									}
									if code == 8 {
										break
									}
									if code == 9 {
										continue
									}
									switch {
									case code == 10:
										continue
									}
									if code == 11 {
										return 11
									}
									if code == 12 {
										switch {
										default:
											break
										}
									}
									if code == 13 {
										switch {
										default:
											break
										}
									}
									if code == 14 {
										dfr++
										defer o.log1(`defer 14`, dfr)
									}
									if code == 15 {
										break L1
									}
									if code == 16 {
										switch {
										default:
											break L1
										}
									}
									if code == 17 {
										break L1
									}
									if code == 18 {
										break L1sw
									}
									if code == 19 {
										break L1sel
									}
									if code == 20 {
										break L1for
									}
									if code == 21 {
										continue L1for
									}
									if code == 22 {
										goto L1a
									}
									if code == 23 {
										goto L1
									}
									if code == 24 {
										goto L1b
									}
									o.log(`top2`)
									l2a := 0
									goto L2a
								L2a:
									o.log(`L2a`)
									if l2a++; l2a >= 2 {
										o.log(`loop L2a`)
										return -1
									}
									l2for := 0
									goto L2for
								L2for:
									for f := 0; f < 1; f++ {
										o.log(`L2for`)
										if l2for++; l2for >= 2 {
											o.log(`loop L2for`)
											return -1
										}
										l2sw := 0
										goto L2sw
									L2sw:
										switch {
										default:
											o.log(`L2sw`)
											if l2sw++; l2sw >= 2 {
												o.log(`loop L2sw`)
												return -1
											}
											l2sel := 0
											goto L2sel
										L2sel:
											switch {
											default:
												o.log(`L2sel`)
												if l2sel++; l2sel >= 2 {
													o.log(`loop L2sel`)
													return -1
												}
												l2 := 0
												goto L2
											L2:
												for i2 := range yield2 {
													o.log1(`L2 top`, i2)
													co.Gosched()
													if l2++; l2 >= 4 {
														o.log(`loop L2`)
														return -1
													}
													if code == 25 {
														break
													}
													if code == 26 {
														continue
													}
													switch {
													case code == 27:
														continue
													}
													if code == 28 {
														return 28
													}
													if code == 29 {
														switch {
														default:
															break
														}
													}
													if code == 30 {
														switch {
														default:
															break
														}
													}
													if code == 31 {
														dfr++
														defer o.log1(`defer 31`, dfr)
													}
													if code == 32 {
														break L2
													}
													if code == 33 {
														switch {
														default:
															break L2
														}
													}
													if code == 34 {
														break L2
													}
													if code == 35 {
														break L2sw
													}
													if code == 36 {
														break L2sel
													}
													if code == 37 {
														break L2for
													}
													if code == 38 {
														continue L2for
													}
													if code == 39 {
														goto L2a
													}
													if code == 40 {
														goto L2
													}
													if code == 41 {
														goto L2b
													}
													if code == 42 {
														break L1
													}
													if code == 43 {
														switch {
														default:
															break L1
														}
													}
													if code == 44 {
														break L1
													}
													if code == 45 {
														break L1sw
													}
													if code == 46 {
														break L1sel
													}
													if code == 47 {
														break L1for
													}
													if code == 48 {
														continue L1for
													}
													if code == 49 {
														goto L1a
													}
													if code == 50 {
														goto L1
													}
													if code == 51 {
														goto L1b
													}
													o.log(`L2 bot`)
												}
												o.log(`L2sel bot`)
											}
											o.log(`L2sw bot`)
										}
										o.log(`L2for bot`)
									}
									o.log(`done2`)
									goto L2b
								L2b:
									o.log(`L2b`)
									if code == 52 {
										break
									}
									if code == 53 {
										continue
									}
									switch {
									case code == 54:
										continue
									}
									if code == 55 {
										return 55
									}
									if code == 56 {
										switch {
										default:
											break
										}
									}
									if code == 57 {
										switch {
										default:
											break
										}
									}
									if code == 58 {
										dfr++
										defer o.log1(`defer 58`, dfr)
									}
									if code == 59 {
										break L1
									}
									if code == 60 {
										switch {
										default:
											break L1
										}
									}
									if code == 61 {
										break L1
									}
									if code == 62 {
										break L1sw
									}
									if code == 63 {
										break L1sel
									}
									if code == 64 {
										break L1for
									}
									if code == 65 {
										continue L1for
									}
									if code == 66 {
										goto L1a
									}
									if code == 67 {
										goto L1
									}
									if code == 68 {
										goto L1b
									}
									o.log(`L1 bot`)
								}
								o.log(`L1sel bot`)
							}
							o.log(`L1sw bot`)
						}
						o.log(`L1for bot`)
					}
					o.log(`done1`)
					goto L1b
				L1b:
					o.log(`L1b`)
					if code == 69 {
						break
					}
					if code == 70 {
						continue
					}
					switch {
					case code == 71:
						continue
					}
					if code == 72 {
						return 72
					}
					if code == 73 {
						switch {
						default:
							break
						}
					}
					if code == 74 {
						switch {
						default:
							break
						}
					}
					if code == 75 {
						dfr++
						defer o.log1(`defer 75`, dfr)
					}
					o.log(`L0 bot`)
				}
				o.log(`L0sel bot`)
			}
			o.log(`L0sw bot`)
		}
		o.log(`L0for bot`)
	}
	o.log(`done0`)
	goto L0b
L0b:
	o.log(`L0b`)
	o.log(`top0R`)
	l0Ra := 0
	goto L0Ra
L0Ra:
	o.log(`L0Ra`)
	if l0Ra++; l0Ra >= 2 {
		o.log(`loop L0Ra`)
		return -1
	}
	l0Rfor := 0
	goto L0Rfor
L0Rfor:
	for f := 0; f < 1; f++ {
		o.log(`L0Rfor`)
		if l0Rfor++; l0Rfor >= 2 {
			o.log(`loop L0Rfor`)
			return -1
		}
		l0Rsw := 0
		goto L0Rsw
	L0Rsw:
		switch {
		default:
			o.log(`L0Rsw`)
			if l0Rsw++; l0Rsw >= 2 {
				o.log(`loop L0Rsw`)
				return -1
			}
			l0Rsel := 0
			goto L0Rsel
		L0Rsel:
			switch {
			default:
				o.log(`L0Rsel`)
				if l0Rsel++; l0Rsel >= 2 {
					o.log(`loop L0Rsel`)
					return -1
				}
				l0R := 0
				goto L0R
			L0R:
				for i0R := range yield2 {
					o.log1(`L0R top`, i0R)
					co.Gosched()
					if l0R++; l0R >= 4 {
						o.log(`loop L0R`)
						return -1
					}
					if code == 76 {
						break
					}
					if code == 77 {
						continue
					}
					switch {
					case code == 78:
						continue
					}
					if code == 79 {
						return 79
					}
					if code == 80 {
						switch {
						default:
							break
						}
					}
					if code == 81 {
						switch {
						default:
							break
						}
					}
					if code == 82 {
						dfr++
						defer o.log1(`defer 82`, dfr)
					}
					o.log(`top1R`)
					l1Ra := 0
					goto L1Ra
				L1Ra:
					o.log(`L1Ra`)
					if l1Ra++; l1Ra >= 2 {
						o.log(`loop L1Ra`)
						return -1
					}
					l1Rfor := 0
					goto L1Rfor
				L1Rfor:
					for f := 0; f < 1; f++ {
						o.log(`L1Rfor`)
						if l1Rfor++; l1Rfor >= 2 {
							o.log(`loop L1Rfor`)
							return -1
						}
						l1Rsw := 0
						goto L1Rsw
					L1Rsw:
						switch {
						default:
							o.log(`L1Rsw`)
							if l1Rsw++; l1Rsw >= 2 {
								o.log(`loop L1Rsw`)
								return -1
							}
							l1Rsel := 0
							goto L1Rsel
						L1Rsel:
							switch {
							default:
								o.log(`L1Rsel`)
								if l1Rsel++; l1Rsel >= 2 {
									o.log(`loop L1Rsel`)
									return -1
								}
								l1R := 0
								goto L1R
							L1R:
								for i1R := range yield2 {
									o.log1(`L1R top`, i1R)
									co.Gosched()
									if l1R++; l1R >= 4 {
										o.log(`loop L1R`)
										return -1
									}
									if code == 83 {
										break
									}
									if code == 84 {
										continue
									}
									switch {
									case code == 85:
										continue
									}
									if code == 86 {
										return 86
									}
									if code == 87 {
										switch {
										default:
											break
										}
									}
									if code == 88 {
										switch {
										default:
											break
										}
									}
									if code == 89 {
										dfr++
										defer o.log1(`defer 89`, dfr)
									}
									if code == 90 {
										break L1R
									}
									if code == 91 {
										switch {
										default:
											break L1R
										}
									}
									if code == 92 {
										break L1R
									}
									if code == 93 {
										break L1Rsw
									}
									if code == 94 {
										break L1Rsel
									}
									if code == 95 {
										break L1Rfor
									}
									if code == 96 {
										continue L1Rfor
									}
									if code == 97 {
										goto L1Ra
									}
									if code == 98 {
										goto L1R
									}
									if code == 99 {
										goto L1Rb
									}
									o.log(`top2R`)
									l2Ra := 0
									goto L2Ra
								L2Ra:
									o.log(`L2Ra`)
									if l2Ra++; l2Ra >= 2 {
										o.log(`loop L2Ra`)
										return -1
									}
									l2Rfor := 0
									goto L2Rfor
								L2Rfor:
									for f := 0; f < 1; f++ {
										o.log(`L2Rfor`)
										if l2Rfor++; l2Rfor >= 2 {
											o.log(`loop L2Rfor`)
											return -1
										}
										l2Rsw := 0
										goto L2Rsw
									L2Rsw:
										switch {
										default:
											o.log(`L2Rsw`)
											if l2Rsw++; l2Rsw >= 2 {
												o.log(`loop L2Rsw`)
												return -1
											}
											l2Rsel := 0
											goto L2Rsel
										L2Rsel:
											switch {
											default:
												o.log(`L2Rsel`)
												if l2Rsel++; l2Rsel >= 2 {
													o.log(`loop L2Rsel`)
													return -1
												}
												l2R := 0
												goto L2R
											L2R:
												for i2R := range yield2 {
													o.log1(`L2R top`, i2R)
													co.Gosched()
													if l2R++; l2R >= 4 {
														o.log(`loop L2R`)
														return -1
													}
													if code == 100 {
														break
													}
													if code == 101 {
														continue
													}
													switch {
													case code == 102:
														continue
													}
													if code == 103 {
														return 103
													}
													if code == 104 {
														switch {
														default:
															break
														}
													}
													if code == 105 {
														switch {
														default:
															break
														}
													}
													if code == 106 {
														dfr++
														defer o.log1(`defer 106`, dfr)
													}
													if code == 107 {
														break L2R
													}
													if code == 108 {
														switch {
														default:
															break L2R
														}
													}
													if code == 109 {
														break L2R
													}
													if code == 110 {
														break L2Rsw
													}
													if code == 111 {
														break L2Rsel
													}
													if code == 112 {
														break L2Rfor
													}
													if code == 113 {
														continue L2Rfor
													}
													if code == 114 {
														goto L2Ra
													}
													if code == 115 {
														goto L2R
													}
													if code == 116 {
														goto L2Rb
													}
													if code == 117 {
														break L1R
													}
													if code == 118 {
														switch {
														default:
															break L1R
														}
													}
													if code == 119 {
														break L1R
													}
													if code == 120 {
														break L1Rsw
													}
													if code == 121 {
														break L1Rsel
													}
													if code == 122 {
														break L1Rfor
													}
													if code == 123 {
														continue L1Rfor
													}
													if code == 124 {
														goto L1Ra
													}
													if code == 125 {
														goto L1R
													}
													if code == 126 {
														goto L1Rb
													}
													o.log(`L2R bot`)
												}
												o.log(`L2Rsel bot`)
											}
											o.log(`L2Rsw bot`)
										}
										o.log(`L2Rfor bot`)
									}
									o.log(`done2R`)
									goto L2Rb
								L2Rb:
									o.log(`L2Rb`)
									if code == 127 {
										break
									}
									if code == 128 {
										continue
									}
									switch {
									case code == 129:
										continue
									}
									if code == 130 {
										return 130
									}
									if code == 131 {
										switch {
										default:
											break
										}
									}
									if code == 132 {
										switch {
										default:
											break
										}
									}
									if code == 133 {
										dfr++
										defer o.log1(`defer 133`, dfr)
									}
									if code == 134 {
										break L1R
									}
									if code == 135 {
										switch {
										default:
											break L1R
										}
									}
									if code == 136 {
										break L1R
									}
									if code == 137 {
										break L1Rsw
									}
									if code == 138 {
										break L1Rsel
									}
									if code == 139 {
										break L1Rfor
									}
									if code == 140 {
										continue L1Rfor
									}
									if code == 141 {
										goto L1Ra
									}
									if code == 142 {
										goto L1R
									}
									if code == 143 {
										goto L1Rb
									}
									o.log(`L1R bot`)
								}
								o.log(`L1Rsel bot`)
							}
							o.log(`L1Rsw bot`)
						}
						o.log(`L1Rfor bot`)
					}
					o.log(`done1R`)
					goto L1Rb
				L1Rb:
					o.log(`L1Rb`)
					if code == 144 {
						break
					}
					if code == 145 {
						continue
					}
					switch {
					case code == 146:
						continue
					}
					if code == 147 {
						return 147
					}
					if code == 148 {
						switch {
						default:
							break
						}
					}
					if code == 149 {
						switch {
						default:
							break
						}
					}
					if code == 150 {
						dfr++
						defer o.log1(`defer 150`, dfr)
					}
					o.log(`L0R bot`)
				}
				o.log(`L0Rsel bot`)
			}
			o.log(`L0Rsw bot`)
		}
		o.log(`L0Rfor bot`)
	}
	o.log(`done0R`)
	goto L0Rb
L0Rb:
	o.log(`L0Rb`)
	return 0
}

//co:stackless
func testFunc3_0(co *stackful.Co, o *output, code int) int {
	dfr := 0
	_ = dfr
	o.log(`top0`)
	l0a := 0
	goto L0a
L0a:
	o.log(`L0a`)
	if l0a++; l0a >= 2 {
		o.log(`loop L0a`)
		return -1
	}
	l0for := 0
	goto L0for
L0for:
	for f := 0; f < 1; f++ {
		o.log(`L0for`)
		if l0for++; l0for >= 2 {
			o.log(`loop L0for`)
			return -1
		}
		l0sw := 0
		goto L0sw
	L0sw:
		switch {
		default:
			o.log(`L0sw`)
			if l0sw++; l0sw >= 2 {
				o.log(`loop L0sw`)
				return -1
			}
			l0sel := 0
			goto L0sel
		L0sel:
			switch {
			default:
				o.log(`L0sel`)
				if l0sel++; l0sel >= 2 {
					o.log(`loop L0sel`)
					return -1
				}
				l0 := 0
				goto L0
			L0:
				for i0 := range yield2 {
					o.log1(`L0 top`, i0)
					co.Gosched()
					if l0++; l0 >= 4 {
						o.log(`loop L0`)
						return -1
					}
					if code == 1 {
						break
					}
					if code == 2 {
						continue
					}
					switch {
					case code == 3:
						continue
					}
					if code == 4 {
						return 4
					}
					if code == 5 {
						switch {
						default:
							break
						}
					}
					if code == 6 {
						switch {
						default:
							break
						}
					}
					if code == 7 {
						dfr++
						defer o.log1(`defer 7`, dfr)
					}
					o.log(`top1`)
					l1a := 0
					goto L1a
				L1a:
					o.log(`L1a`)
					if l1a++; l1a >= 2 {
						o.log(`loop L1a`)
						return -1
					}
					l1for := 0
					goto L1for
				L1for:
					for f := 0; f < 1; f++ {
						o.log(`L1for`)
						if l1for++; l1for >= 2 {
							o.log(`loop L1for`)
							return -1
						}
						l1sw := 0
						goto L1sw
					L1sw:
						switch {
						default:
							o.log(`L1sw`)
							if l1sw++; l1sw >= 2 {
								o.log(`loop L1sw`)
								return -1
							}
							l1sel := 0
							goto L1sel
						L1sel:
							switch {
							default:
								o.log(`L1sel`)
								if l1sel++; l1sel >= 2 {
									o.log(`loop L1sel`)
									return -1
								}
								l1 := 0
								goto L1
							L1:
								for i1 := range yield2 {
									o.log1(`L1 top`, i1)
									co.Gosched()
									if l1++; l1 >= 4 {
										o.log(`loop L1`)
										return -1
									}
									if code == 8 {
										break
									}
									if code == 9 {
										continue
									}
									switch {
									case code == 10:
										continue
									}
									if code == 11 {
										return 11
									}
									if code == 12 {
										switch {
										default:
											break
										}
									}
									if code == 13 {
										switch {
										default:
											break
										}
									}
									if code == 14 {
										dfr++
										defer o.log1(`defer 14`, dfr)
									}
									if code == 15 {
										break L1
									}
									if code == 16 {
										switch {
										default:
											break L1
										}
									}
									if code == 17 {
										break L1
									}
									if code == 18 {
										break L1sw
									}
									if code == 19 {
										break L1sel
									}
									if code == 20 {
										break L1for
									}
									if code == 21 {
										continue L1for
									}
									if code == 22 {
										goto L1a
									}
									if code == 23 {
										goto L1
									}
									if code == 24 {
										goto L1b
									}
									o.log(`top2`)
									l2a := 0
									goto L2a
								L2a:
									o.log(`L2a`)
									if l2a++; l2a >= 2 {
										o.log(`loop L2a`)
										return -1
									}
									l2for := 0
									goto L2for
								L2for:
									for f := 0; f < 1; f++ {
										o.log(`L2for`)
										if l2for++; l2for >= 2 {
											o.log(`loop L2for`)
											return -1
										}
										l2sw := 0
										goto L2sw
									L2sw:
										switch {
										default:
											o.log(`L2sw`)
											if l2sw++; l2sw >= 2 {
												o.log(`loop L2sw`)
												return -1
											}
											l2sel := 0
											goto L2sel
										L2sel:
											switch {
											default:
												o.log(`L2sel`)
												if l2sel++; l2sel >= 2 {
													o.log(`loop L2sel`)
													return -1
												}
												l2 := 0
												goto L2
											L2:
												for i2 := range yield2 {
													o.log1(`L2 top`, i2)
													co.Gosched()
													if l2++; l2 >= 4 {
														o.log(`loop L2`)
														return -1
													}
													if code == 25 {
														break
													}
													if code == 26 {
														continue
													}
													switch {
													case code == 27:
														continue
													}
													if code == 28 {
														return 28
													}
													if code == 29 {
														switch {
														default:
															break
														}
													}
													if code == 30 {
														switch {
														default:
															break
														}
													}
													if code == 31 {
														dfr++
														defer o.log1(`defer 31`, dfr)
													}
													if code == 32 {
														break L2
													}
													if code == 33 {
														switch {
														default:
															break L2
														}
													}
													if code == 34 {
														break L2
													}
													if code == 35 {
														break L2sw
													}
													if code == 36 {
														break L2sel
													}
													if code == 37 {
														break L2for
													}
													if code == 38 {
														continue L2for
													}
													if code == 39 {
														goto L2a
													}
													if code == 40 {
														goto L2
													}
													if code == 41 {
														goto L2b
													}
													if code == 42 {
														break L1
													}
													if code == 43 {
														switch {
														default:
															break L1
														}
													}
													if code == 44 {
														break L1
													}
													if code == 45 {
														break L1sw
													}
													if code == 46 {
														break L1sel
													}
													if code == 47 {
														break L1for
													}
													if code == 48 {
														continue L1for
													}
													if code == 49 {
														goto L1a
													}
													if code == 50 {
														goto L1
													}
													if code == 51 {
														goto L1b
													}
													o.log(`top3`)
													l3a := 0
													goto L3a
												L3a:
													o.log(`L3a`)
													if l3a++; l3a >= 2 {
														o.log(`loop L3a`)
														return -1
													}
													l3for := 0
													goto L3for
												L3for:
													for f := 0; f < 1; f++ {
														o.log(`L3for`)
														if l3for++; l3for >= 2 {
															o.log(`loop L3for`)
															return -1
														}
														l3sw := 0
														goto L3sw
													L3sw:
														switch {
														default:
															o.log(`L3sw`)
															if l3sw++; l3sw >= 2 {
																o.log(`loop L3sw`)
																return -1
															}
															l3sel := 0
															goto L3sel
														L3sel:
															switch {
															default:
																o.log(`L3sel`)
																if l3sel++; l3sel >= 2 {
																	o.log(`loop L3sel`)
																	return -1
																}
																l3 := 0
																goto L3
															L3:
																for i3 := range yield2 {
																	o.log1(`L3 top`, i3)
																	co.Gosched()
																	if l3++; l3 >= 4 {
																		o.log(`loop L3`)
																		return -1
																	}
																	if code == 52 {
																		break
																	}
																	if code == 53 {
																		continue
																	}
																	switch {
																	case code == 54:
																		continue
																	}
																	if code == 55 {
																		return 55
																	}
																	if code == 56 {
																		switch {
																		default:
																			break
																		}
																	}
																	if code == 57 {
																		switch {
																		default:
																			break
																		}
																	}
																	if code == 58 {
																		dfr++
																		defer o.log1(`defer 58`, dfr)
																	}
																	if code == 59 {
																		break L3
																	}
																	if code == 60 {
																		switch {
																		default:
																			break L3
																		}
																	}
																	if code == 61 {
																		break L3
																	}
																	if code == 62 {
																		break L3sw
																	}
																	if code == 63 {
																		break L3sel
																	}
																	if code == 64 {
																		break L3for
																	}
																	if code == 65 {
																		continue L3for
																	}
																	if code == 66 {
																		goto L3a
																	}
																	if code == 67 {
																		goto L3
																	}
																	if code == 68 {
																		goto L3b
																	}
																	if code == 69 {
																		break L2
																	}
																	if code == 70 {
																		switch {
																		default:
																			break L2
																		}
																	}
																	if code == 71 {
																		break L2
																	}
																	if code == 72 {
																		break L2sw
																	}
																	if code == 73 {
																		break L2sel
																	}
																	if code == 74 {
																		break L2for
																	}
																	if code == 75 {
																		continue L2for
																	}
																	if code == 76 {
																		goto L2a
																	}
																	if code == 77 {
																		goto L2
																	}
																	if code == 78 {
																		goto L2b
																	}
																	if code == 79 {
																		break L1
																	}
																	if code == 80 {
																		switch {
																		default:
																			break L1
																		}
																	}
																	if code == 81 {
																		break L1
																	}
																	if code == 82 {
																		break L1sw
																	}
																	if code == 83 {
																		break L1sel
																	}
																	if code == 84 {
																		break L1for
																	}
																	if code == 85 {
																		continue L1for
																	}
																	if code == 86 {
																		goto L1a
																	}
																	if code == 87 {
																		goto L1
																	}
																	if code == 88 {
																		goto L1b
																	}
																	o.log(`L3 bot`)
																}
																o.log(`L3sel bot`)
															}
															o.log(`L3sw bot`)
														}
														o.log(`L3for bot`)
													}
													o.log(`done3`)
													goto L3b
												L3b:
													o.log(`L3b`)
													if code == 89 {
														break
													}
													if code == 90 {
														continue
													}
													switch {
													case code == 91:
														continue
													}
													if code == 92 {
														return 92
													}
													if code == 93 {
														switch {
														default:
															break
														}
													}
													if code == 94 {
														switch {
														default:
															break
														}
													}
													if code == 95 {
														dfr++
														defer o.log1(`defer 95`, dfr)
													}
													if code == 96 {
														break L2
													}
													if code == 97 {
														switch {
														default:
															break L2
														}
													}
													if code == 98 {
														break L2
													}
													if code == 99 {
														break L2sw
													}
													if code == 100 {
														break L2sel
													}
													if code == 101 {
														break L2for
													}
													if code == 102 {
														continue L2for
													}
													if code == 103 {
														goto L2a
													}
													if code == 104 {
														goto L2
													}
													if code == 105 {
														goto L2b
													}
													if code == 106 {
														break L1
													}
													if code == 107 {
														switch {
														default:
															break L1
														}
													}
													if code == 108 {
														break L1
													}
													if code == 109 {
														break L1sw
													}
													if code == 110 {
														break L1sel
													}
													if code == 111 {
														break L1for
													}
													if code == 112 {
														continue L1for
													}
													if code == 113 {
														goto L1a
													}
													if code == 114 {
														goto L1
													}
													if code == 115 {
														goto L1b
													}
													o.log(`L2 bot`)
												}
												o.log(`L2sel bot`)
											}
											o.log(`L2sw bot`)
										}
										o.log(`L2for bot`)
									}
									o.log(`done2`)
									goto L2b
								L2b:
									o.log(`L2b`)
									if code == 116 {
										break
									}
									if code == 117 {
										continue
									}
									switch {
									case code == 118:
										continue
									}
									if code == 119 {
										return 119
									}
									if code == 120 {
										switch {
										default:
											break
										}
									}
									if code == 121 {
										switch {
										default:
											break
										}
									}
									if code == 122 {
										dfr++
										defer o.log1(`defer 122`, dfr)
									}
									if code == 123 {
										break L1
									}
									if code == 124 {
										switch {
										default:
											break L1
										}
									}
									if code == 125 {
										break L1
									}
									if code == 126 {
										break L1sw
									}
									if code == 127 {
										break L1sel
									}
									if code == 128 {
										break L1for
									}
									if code == 129 {
										continue L1for
									}
									if code == 130 {
										goto L1a
									}
									if code == 131 {
										goto L1
									}
									if code == 132 {
										goto L1b
									}
									o.log(`L1 bot`)
								}
								o.log(`L1sel bot`)
							}
							o.log(`L1sw bot`)
						}
						o.log(`L1for bot`)
					}
					o.log(`done1`)
					goto L1b
				L1b:
					o.log(`L1b`)
					if code == 133 {
						break
					}
					if code == 134 {
						continue
					}
					switch {
					case code == 135:
						continue
					}
					if code == 136 {
						return 136
					}
					if code == 137 {
						switch {
						default:
							break
						}
					}
					if code == 138 {
						switch {
						default:
							break
						}
					}
					if code == 139 {
						dfr++
						defer o.log1(`defer 139`, dfr)
					}
					o.log(`L0 bot`)
				}
				o.log(`L0sel bot`)
			}
			o.log(`L0sw bot`)
		}
		o.log(`L0for bot`)
	}
	o.log(`done0`)
	goto L0b
L0b:
	o.log(`L0b`)
	return 0
}

//co:stackless
func testFunc3_1(co *stackful.Co, o *output, code int) int {
	dfr := 0
	_ = dfr
	o.log(`top0`)
	l0a := 0
	goto L0a
L0a:
	o.log(`L0a`)
	if l0a++; l0a >= 2 {
		o.log(`loop L0a`)
		return -1
	}
	l0for := 0
	goto L0for
L0for:
	for f := 0; f < 1; f++ {
		o.log(`L0for`)
		if l0for++; l0for >= 2 {
			o.log(`loop L0for`)
			return -1
		}
		l0sw := 0
		goto L0sw
	L0sw:
		switch {
		default:
			o.log(`L0sw`)
			if l0sw++; l0sw >= 2 {
				o.log(`loop L0sw`)
				return -1
			}
			l0sel := 0
			goto L0sel
		L0sel:
			switch {
			default:
				o.log(`L0sel`)
				if l0sel++; l0sel >= 2 {
					o.log(`loop L0sel`)
					return -1
				}
				l0 := 0
				goto L0
			L0:
				for i0 := range yield2 {
					o.log1(`L0 top`, i0)
					co.Gosched()
					if l0++; l0 >= 4 {
						o.log(`loop L0`)
						return -1
					}
					if code == 1 {
						break
					}
					if code == 2 {
						continue
					}
					switch {
					case code == 3:
						continue
					}
					if code == 4 {
						return 4
					}
					if code == 5 {
						switch {
						default:
							break
						}
					}
					if code == 6 {
						switch {
						default:
							break
						}
					}
					if code == 7 {
						dfr++
						defer o.log1(`defer 7`, dfr)
					}
					o.log(`top1`)
					l1a := 0
					goto L1a
				L1a:
					o.log(`L1a`)
					if l1a++; l1a >= 2 {
						o.log(`loop L1a`)
						return -1
					}
					l1for := 0
					goto L1for
				L1for:
					for f := 0; f < 1; f++ {
						o.log(`L1for`)
						if l1for++; l1for >= 2 {
							o.log(`loop L1for`)
							return -1
						}
						l1sw := 0
						goto L1sw
					L1sw:
						switch {
						default:
							o.log(`L1sw`)
							if l1sw++; l1sw >= 2 {
								o.log(`loop L1sw`)
								return -1
							}
							l1sel := 0
							goto L1sel
						L1sel:
							switch {
							default:
								o.log(`L1sel`)
								if l1sel++; l1sel >= 2 {
									o.log(`loop L1sel`)
									return -1
								}
								l1 := 0
								goto L1
							L1:
								for i1 := range yield2 {
									o.log1(`L1 top`, i1)
									co.Gosched()
									if l1++; l1 >= 4 {
										o.log(`loop L1`)
										return -1
									}
									if code == 8 {
										break
									}
									if code == 9 {
										continue
									}
									switch {
									case code == 10:
										continue
									}
									if code == 11 {
										return 11
									}
									if code == 12 {
										switch {
										default:
											break
										}
									}
									if code == 13 {
										switch {
										default:
											break
										}
									}
									if code == 14 {
										dfr++
										defer o.log1(`defer 14`, dfr)
									}
									if code == 15 {
										break L1
									}
									if code == 16 {
										switch {
										default:
											break L1
										}
									}
									if code == 17 {
										break L1
									}
									if code == 18 {
										break L1sw
									}
									if code == 19 {
										break L1sel
									}
									if code == 20 {
										break L1for
									}
									if code == 21 {
										continue L1for
									}
									if code == 22 {
										goto L1a
									}
									if code == 23 {
										goto L1
									}
									if code == 24 {
										goto L1b
									}
									o.log(`top2`)
									l2a := 0
									goto L2a
								L2a:
									o.log(`L2a`)
									if l2a++; l2a >= 2 {
										o.log(`loop L2a`)
										return -1
									}
									l2for := 0
									goto L2for
								L2for:
									for f := 0; f < 1; f++ {
										o.log(`L2for`)
										if l2for++; l2for >= 2 {
											o.log(`loop L2for`)
											return -1
										}
										l2sw := 0
										goto L2sw
									L2sw:
										switch {
										default:
											o.log(`L2sw`)
											if l2sw++; l2sw >= 2 {
												o.log(`loop L2sw`)
												return -1
											}
											l2sel := 0
											goto L2sel
										L2sel:
											switch {
											default:
												o.log(`L2sel`)
												if l2sel++; l2sel >= 2 {
													o.log(`loop L2sel`)
													return -1
												}
												l2 := 0
												goto L2
											L2:
												for i2 := range yield2 {
													o.log1(`L2 top`, i2)
													co.Gosched()
													if l2++; l2 >= 4 {
														o.log(`loop L2`)
														return -1
													}
													if code == 25 {
														break
													}
													if code == 26 {
														continue
													}
													switch {
													case code == 27:
														continue
													}
													if code == 28 {
														return 28
													}
													if code == 29 {
														switch {
														default:
															break
														}
													}
													if code == 30 {
														switch {
														default:
															break
														}
													}
													if code == 31 {
														dfr++
														defer o.log1(`defer 31`, dfr)
													}
													if code == 32 {
														break L2
													}
													if code == 33 {
														switch {
														default:
															break L2
														}
													}
													if code == 34 {
														break L2
													}
													if code == 35 {
														break L2sw
													}
													if code == 36 {
														break L2sel
													}
													if code == 37 {
														break L2for
													}
													if code == 38 {
														continue L2for
													}
													if code == 39 {
														goto L2a
													}
													if code == 40 {
														goto L2
													}
													if code == 41 {
														goto L2b
													}
													if code == 42 {
														break L1
													}
													if code == 43 {
														switch {
														default:
															break L1
														}
													}
													if code == 44 {
														break L1
													}
													if code == 45 {
														break L1sw
													}
													if code == 46 {
														break L1sel
													}
													if code == 47 {
														break L1for
													}
													if code == 48 {
														continue L1for
													}
													if code == 49 {
														goto L1a
													}
													if code == 50 {
														goto L1
													}
													if code == 51 {
														goto L1b
													}
													o.log(`top3`)
													l3a := 0
													goto L3a
												L3a:
													o.log(`L3a`)
													if l3a++; l3a >= 2 {
														o.log(`loop L3a`)
														return -1
													}
													l3for := 0
													goto L3for
												L3for:
													for f := 0; f < 1; f++ {
														o.log(`L3for`)
														if l3for++; l3for >= 2 {
															o.log(`loop L3for`)
															return -1
														}
														l3sw := 0
														goto L3sw
													L3sw:
														switch {
														default:
															o.log(`L3sw`)
															if l3sw++; l3sw >= 2 {
																o.log(`loop L3sw`)
																return -1
															}
															l3sel := 0
															goto L3sel
														L3sel:
															switch {
															default:
																o.log(`L3sel`)
																if l3sel++; l3sel >= 2 {
																	o.log(`loop L3sel`)
																	return -1
																}
																l3 := 0
																goto L3
															L3:
																for i3 := range yield2 {
																	o.log1(`L3 top`, i3)
																	co.Gosched()
																	if l3++; l3 >= 4 {
																		o.log(`loop L3`)
																		return -1
																	}
																	if code == 52 {
																		break
																	}
																	if code == 53 {
																		continue
																	}
																	switch {
																	case code == 54:
																		continue
																	}
																	if code == 55 {
																		return 55
																	}
																	if code == 56 {
																		switch {
																		default:
																			break
																		}
																	}
																	if code == 57 {
																		switch {
																		default:
																			break
																		}
																	}
																	if code == 58 {
																		dfr++
																		defer o.log1(`defer 58`, dfr)
																	}
																	if code == 59 {
																		break L3
																	}
																	if code == 60 {
																		switch {
																		default:
																			break L3
																		}
																	}
																	if code == 61 {
																		break L3
																	}
																	if code == 62 {
																		break L3sw
																	}
																	if code == 63 {
																		break L3sel
																	}
																	if code == 64 {
																		break L3for
																	}
																	if code == 65 {
																		continue L3for
																	}
																	if code == 66 {
																		goto L3a
																	}
																	if code == 67 {
																		goto L3
																	}
																	if code == 68 {
																		goto L3b
																	}
																	if code == 69 {
																		break L2
																	}
																	if code == 70 {
																		switch {
																		default:
																			break L2
																		}
																	}
																	if code == 71 {
																		break L2
																	}
																	if code == 72 {
																		break L2sw
																	}
																	if code == 73 {
																		break L2sel
																	}
																	if code == 74 {
																		break L2for
																	}
																	if code == 75 {
																		continue L2for
																	}
																	if code == 76 {
																		goto L2a
																	}
																	if code == 77 {
																		goto L2
																	}
																	if code == 78 {
																		goto L2b
																	}
																	if code == 79 {
																		break L1
																	}
																	if code == 80 {
																		switch {
																		default:
																			break L1
																		}
																	}
																	if code == 81 {
																		break L1
																	}
																	if code == 82 {
																		break L1sw
																	}
																	if code == 83 {
																		break L1sel
																	}
																	if code == 84 {
																		break L1for
																	}
																	if code == 85 {
																		continue L1for
																	}
																	if code == 86 {
																		goto L1a
																	}
																	if code == 87 {
																		goto L1
																	}
																	if code == 88 {
																		goto L1b
																	}
																	o.log(`L3 bot`)
																}
																o.log(`L3sel bot`)
															}
															o.log(`L3sw bot`)
														}
														o.log(`L3for bot`)
													}
													o.log(`done3`)
													goto L3b
												L3b:
													o.log(`L3b`)
													if code == 89 {
														break
													}
													if code == 90 {
														continue
													}
													switch {
													case code == 91:
														continue
													}
													if code == 92 {
														return 92
													}
													if code == 93 {
														switch {
														default:
															break
														}
													}
													if code == 94 {
														switch {
														default:
															break
														}
													}
													if code == 95 {
														dfr++
														defer o.log1(`defer 95`, dfr)
													}
													if code == 96 {
														break L2
													}
													if code == 97 {
														switch {
														default:
															break L2
														}
													}
													if code == 98 {
														break L2
													}
													if code == 99 {
														break L2sw
													}
													if code == 100 {
														break L2sel
													}
													if code == 101 {
														break L2for
													}
													if code == 102 {
														continue L2for
													}
													if code == 103 {
														goto L2a
													}
													if code == 104 {
														goto L2
													}
													if code == 105 {
														goto L2b
													}
													if code == 106 {
														break L1
													}
													if code == 107 {
														switch {
														default:
															break L1
														}
													}
													if code == 108 {
														break L1
													}
													if code == 109 {
														break L1sw
													}
													if code == 110 {
														break L1sel
													}
													if code == 111 {
														break L1for
													}
													if code == 112 {
														continue L1for
													}
													if code == 113 {
														goto L1a
													}
													if code == 114 {
														goto L1
													}
													if code == 115 {
														goto L1b
													}
													o.log(`L2 bot`)
												}
												o.log(`L2sel bot`)
											}
											o.log(`L2sw bot`)
										}
										o.log(`L2for bot`)
									}
									o.log(`done2`)
									goto L2b
								L2b:
									o.log(`L2b`)
									if code == 116 {
										break
									}
									if code == 117 {
										continue
									}
									switch {
									case code == 118:
										continue
									}
									if code == 119 {
										return 119
									}
									if code == 120 {
										switch {
										default:
											break
										}
									}
									if code == 121 {
										switch {
										default:
											break
										}
									}
									if code == 122 {
										dfr++
										defer o.log1(`defer 122`, dfr)
									}
									if code == 123 {
										break L1
									}
									if code == 124 {
										switch {
										default:
											break L1
										}
									}
									if code == 125 {
										break L1
									}
									if code == 126 {
										break L1sw
									}
									if code == 127 {
										break L1sel
									}
									if code == 128 {
										break L1for
									}
									if code == 129 {
										continue L1for
									}
									if code == 130 {
										goto L1a
									}
									if code == 131 {
										goto L1
									}
									if code == 132 {
										goto L1b
									}
									o.log(`L1 bot`)
								}
								o.log(`L1sel bot`)
							}
							o.log(`L1sw bot`)
						}
						o.log(`L1for bot`)
					}
					o.log(`done1`)
					goto L1b
				L1b:
					o.log(`L1b`)
					if code == 133 {
						break
					}
					if code == 134 {
						continue
					}
					switch {
					case code == 135:
						continue
					}
					if code == 136 {
						return 136
					}
					if code == 137 {
						switch {
						default:
							break
						}
					}
					if code == 138 {
						switch {
						default:
							break
						}
					}
					if code == 139 {
						dfr++
						defer o.log1(`defer 139`, dfr)
					}
					o.log(`L0 bot`)
				}
				o.log(`L0sel bot`)
			}
			o.log(`L0sw bot`)
		}
		o.log(`L0for bot`)
	}
	o.log(`done0`)
	goto L0b
L0b:
	o.log(`L0b`)
	o.log(`top0R`)
	l0Ra := 0
	goto L0Ra
L0Ra:
	o.log(`L0Ra`)
	if l0Ra++; l0Ra >= 2 {
		o.log(`loop L0Ra`)
		return -1
	}
	l0Rfor := 0
	goto L0Rfor
L0Rfor:
	for f := 0; f < 1; f++ {
		o.log(`L0Rfor`)
		if l0Rfor++; l0Rfor >= 2 {
			o.log(`loop L0Rfor`)
			return -1
		}
		l0Rsw := 0
		goto L0Rsw
	L0Rsw:
		switch {
		default:
			o.log(`L0Rsw`)
			if l0Rsw++; l0Rsw >= 2 {
				o.log(`loop L0Rsw`)
				return -1
			}
			l0Rsel := 0
			goto L0Rsel
		L0Rsel:
			switch {
			default:
				o.log(`L0Rsel`)
				if l0Rsel++; l0Rsel >= 2 {
					o.log(`loop L0Rsel`)
					return -1
				}
				l0R := 0
				goto L0R
			L0R:
				for i0R := range yield2 {
					o.log1(`L0R top`, i0R)
					co.Gosched()
					if l0R++; l0R >= 4 {
						o.log(`loop L0R`)
						return -1
					}
					if code == 140 {
						break
					}
					if code == 141 {
						continue
					}
					switch {
					case code == 142:
						continue
					}
					if code == 143 {
						return 143
					}
					if code == 144 {
						switch {
						default:
							break
						}
					}
					if code == 145 {
						switch {
						default:
							break
						}
					}
					if code == 146 {
						dfr++
						defer o.log1(`defer 146`, dfr)
					}
					o.log(`top1R`)
					l1Ra := 0
					goto L1Ra
				L1Ra:
					o.log(`L1Ra`)
					if l1Ra++; l1Ra >= 2 {
						o.log(`loop L1Ra`)
						return -1
					}
					l1Rfor := 0
					goto L1Rfor
				L1Rfor:
					for f := 0; f < 1; f++ {
						o.log(`L1Rfor`)
						if l1Rfor++; l1Rfor >= 2 {
							o.log(`loop L1Rfor`)
							return -1
						}
						l1Rsw := 0
						goto L1Rsw
					L1Rsw:
						switch {
						default:
							o.log(`L1Rsw`)
							if l1Rsw++; l1Rsw >= 2 {
								o.log(`loop L1Rsw`)
								return -1
							}
							l1Rsel := 0
							goto L1Rsel
						L1Rsel:
							switch {
							default:
								o.log(`L1Rsel`)
								if l1Rsel++; l1Rsel >= 2 {
									o.log(`loop L1Rsel`)
									return -1
								}
								l1R := 0
								goto L1R
							L1R:
								for i1R := range yield2 {
									o.log1(`L1R top`, i1R)
									co.Gosched()
									if l1R++; l1R >= 4 {
										o.log(`loop L1R`)
										return -1
									}
									if code == 147 {
										break
									}
									if code == 148 {
										continue
									}
									switch {
									case code == 149:
										continue
									}
									if code == 150 {
										return 150
									}
									if code == 151 {
										switch {
										default:
											break
										}
									}
									if code == 152 {
										switch {
										default:
											break
										}
									}
									if code == 153 {
										dfr++
										defer o.log1(`defer 153`, dfr)
									}
									if code == 154 {
										break L1R
									}
									if code == 155 {
										switch {
										default:
											break L1R
										}
									}
									if code == 156 {
										break L1R
									}
									if code == 157 {
										break L1Rsw
									}
									if code == 158 {
										break L1Rsel
									}
									if code == 159 {
										break L1Rfor
									}
									if code == 160 {
										continue L1Rfor
									}
									if code == 161 {
										goto L1Ra
									}
									if code == 162 {
										goto L1R
									}
									if code == 163 {
										goto L1Rb
									}
									o.log(`top2R`)
									l2Ra := 0
									goto L2Ra
								L2Ra:
									o.log(`L2Ra`)
									if l2Ra++; l2Ra >= 2 {
										o.log(`loop L2Ra`)
										return -1
									}
									l2Rfor := 0
									goto L2Rfor
								L2Rfor:
									for f := 0; f < 1; f++ {
										o.log(`L2Rfor`)
										if l2Rfor++; l2Rfor >= 2 {
											o.log(`loop L2Rfor`)
											return -1
										}
										l2Rsw := 0
										goto L2Rsw
									L2Rsw:
										switch {
										default:
											o.log(`L2Rsw`)
											if l2Rsw++; l2Rsw >= 2 {
												o.log(`loop L2Rsw`)
												return -1
											}
											l2Rsel := 0
											goto L2Rsel
										L2Rsel:
											switch {
											default:
												o.log(`L2Rsel`)
												if l2Rsel++; l2Rsel >= 2 {
													o.log(`loop L2Rsel`)
													return -1
												}
												l2R := 0
												goto L2R
											L2R:
												for i2R := range yield2 {
													o.log1(`L2R top`, i2R)
													co.Gosched()
													if l2R++; l2R >= 4 {
														o.log(`loop L2R`)
														return -1
													}
													if code == 164 {
														break
													}
													if code == 165 {
														continue
													}
													switch {
													case code == 166:
														continue
													}
													if code == 167 {
														return 167
													}
													if code == 168 {
														switch {
														default:
															break
														}
													}
													if code == 169 {
														switch {
														default:
															break
														}
													}
													if code == 170 {
														dfr++
														defer o.log1(`defer 170`, dfr)
													}
													if code == 171 {
														break L2R
													}
													if code == 172 {
														switch {
														default:
															break L2R
														}
													}
													if code == 173 {
														break L2R
													}
													if code == 174 {
														break L2Rsw
													}
													if code == 175 {
														break L2Rsel
													}
													if code == 176 {
														break L2Rfor
													}
													if code == 177 {
														continue L2Rfor
													}
													if code == 178 {
														goto L2Ra
													}
													if code == 179 {
														goto L2R
													}
													if code == 180 {
														goto L2Rb
													}
													if code == 181 {
														break L1R
													}
													if code == 182 {
														switch {
														default:
															break L1R
														}
													}
													if code == 183 {
														break L1R
													}
													if code == 184 {
														break L1Rsw
													}
													if code == 185 {
														break L1Rsel
													}
													if code == 186 {
														break L1Rfor
													}
													if code == 187 {
														continue L1Rfor
													}
													if code == 188 {
														goto L1Ra
													}
													if code == 189 {
														goto L1R
													}
													if code == 190 {
														goto L1Rb
													}
													o.log(`top3R`)
													l3Ra := 0
													goto L3Ra
												L3Ra:
													o.log(`L3Ra`)
													if l3Ra++; l3Ra >= 2 {
														o.log(`loop L3Ra`)
														return -1
													}
													l3Rfor := 0
													goto L3Rfor
												L3Rfor:
													for f := 0; f < 1; f++ {
														o.log(`L3Rfor`)
														if l3Rfor++; l3Rfor >= 2 {
															o.log(`loop L3Rfor`)
															return -1
														}
														l3Rsw := 0
														goto L3Rsw
													L3Rsw:
														switch {
														default:
															o.log(`L3Rsw`)
															if l3Rsw++; l3Rsw >= 2 {
																o.log(`loop L3Rsw`)
																return -1
															}
															l3Rsel := 0
															goto L3Rsel
														L3Rsel:
															switch {
															default:
																o.log(`L3Rsel`)
																if l3Rsel++; l3Rsel >= 2 {
																	o.log(`loop L3Rsel`)
																	return -1
																}
																l3R := 0
																goto L3R
															L3R:
																for i3R := range yield2 {
																	o.log1(`L3R top`, i3R)
																	co.Gosched()
																	if l3R++; l3R >= 4 {
																		o.log(`loop L3R`)
																		return -1
																	}
																	if code == 191 {
																		break
																	}
																	if code == 192 {
																		continue
																	}
																	switch {
																	case code == 193:
																		continue
																	}
																	if code == 194 {
																		return 194
																	}
																	if code == 195 {
																		switch {
																		default:
																			break
																		}
																	}
																	if code == 196 {
																		switch {
																		default:
																			break
																		}
																	}
																	if code == 197 {
																		dfr++
																		defer o.log1(`defer 197`, dfr)
																	}
																	if code == 198 {
																		break L3R
																	}
																	if code == 199 {
																		switch {
																		default:
																			break L3R
																		}
																	}
																	if code == 200 {
																		break L3R
																	}
																	if code == 201 {
																		break L3Rsw
																	}
																	if code == 202 {
																		break L3Rsel
																	}
																	if code == 203 {
																		break L3Rfor
																	}
																	if code == 204 {
																		continue L3Rfor
																	}
																	if code == 205 {
																		goto L3Ra
																	}
																	if code == 206 {
																		goto L3R
																	}
																	if code == 207 {
																		goto L3Rb
																	}
																	if code == 208 {
																		break L2R
																	}
																	if code == 209 {
																		switch {
																		default:
																			break L2R
																		}
																	}
																	if code == 210 {
																		break L2R
																	}
																	if code == 211 {
																		break L2Rsw
																	}
																	if code == 212 {
																		break L2Rsel
																	}
																	if code == 213 {
																		break L2Rfor
																	}
																	if code == 214 {
																		continue L2Rfor
																	}
																	if code == 215 {
																		goto L2Ra
																	}
																	if code == 216 {
																		goto L2R
																	}
																	if code == 217 {
																		goto L2Rb
																	}
																	if code == 218 {
																		break L1R
																	}
																	if code == 219 {
																		switch {
																		default:
																			break L1R
																		}
																	}
																	if code == 220 {
																		break L1R
																	}
																	if code == 221 {
																		break L1Rsw
																	}
																	if code == 222 {
																		break L1Rsel
																	}
																	if code == 223 {
																		break L1Rfor
																	}
																	if code == 224 {
																		continue L1Rfor
																	}
																	if code == 225 {
																		goto L1Ra
																	}
																	if code == 226 {
																		goto L1R
																	}
																	if code == 227 {
																		goto L1Rb
																	}
																	o.log(`L3R bot`)
																}
																o.log(`L3Rsel bot`)
															}
															o.log(`L3Rsw bot`)
														}
														o.log(`L3Rfor bot`)
													}
													o.log(`done3R`)
													goto L3Rb
												L3Rb:
													o.log(`L3Rb`)
													if code == 228 {
														break
													}
													if code == 229 {
														continue
													}
													switch {
													case code == 230:
														continue
													}
													if code == 231 {
														return 231
													}
													if code == 232 {
														switch {
														default:
															break
														}
													}
													if code == 233 {
														switch {
														default:
															break
														}
													}
													if code == 234 {
														dfr++
														defer o.log1(`defer 234`, dfr)
													}
													if code == 235 {
														break L2R
													}
													if code == 236 {
														switch {
														default:
															break L2R
														}
													}
													if code == 237 {
														break L2R
													}
													if code == 238 {
														break L2Rsw
													}
													if code == 239 {
														break L2Rsel
													}
													if code == 240 {
														break L2Rfor
													}
													if code == 241 {
														continue L2Rfor
													}
													if code == 242 {
														goto L2Ra
													}
													if code == 243 {
														goto L2R
													}
													if code == 244 {
														goto L2Rb
													}
													if code == 245 {
														break L1R
													}
													if code == 246 {
														switch {
														default:
															break L1R
														}
													}
													if code == 247 {
														break L1R
													}
													if code == 248 {
														break L1Rsw
													}
													if code == 249 {
														break L1Rsel
													}
													if code == 250 {
														break L1Rfor
													}
													if code == 251 {
														continue L1Rfor
													}
													if code == 252 {
														goto L1Ra
													}
													if code == 253 {
														goto L1R
													}
													if code == 254 {
														goto L1Rb
													}
													o.log(`L2R bot`)
												}
												o.log(`L2Rsel bot`)
											}
											o.log(`L2Rsw bot`)
										}
										o.log(`L2Rfor bot`)
									}
									o.log(`done2R`)
									goto L2Rb
								L2Rb:
									o.log(`L2Rb`)
									if code == 255 {
										break
									}
									if code == 256 {
										continue
									}
									switch {
									case code == 257:
										continue
									}
									if code == 258 {
										return 258
									}
									if code == 259 {
										switch {
										default:
											break
										}
									}
									if code == 260 {
										switch {
										default:
											break
										}
									}
									if code == 261 {
										dfr++
										defer o.log1(`defer 261`, dfr)
									}
									if code == 262 {
										break L1R
									}
									if code == 263 {
										switch {
										default:
											break L1R
										}
									}
									if code == 264 {
										break L1R
									}
									if code == 265 {
										break L1Rsw
									}
									if code == 266 {
										break L1Rsel
									}
									if code == 267 {
										break L1Rfor
									}
									if code == 268 {
										continue L1Rfor
									}
									if code == 269 {
										goto L1Ra
									}
									if code == 270 {
										goto L1R
									}
									if code == 271 {
										goto L1Rb
									}
									o.log(`L1R bot`)
								}
								o.log(`L1Rsel bot`)
							}
							o.log(`L1Rsw bot`)
						}
						o.log(`L1Rfor bot`)
					}
					o.log(`done1R`)
					goto L1Rb
				L1Rb:
					o.log(`L1Rb`)
					if code == 272 {
						break
					}
					if code == 273 {
						continue
					}
					switch {
					case code == 274:
						continue
					}
					if code == 275 {
						return 275
					}
					if code == 276 {
						switch {
						default:
							break
						}
					}
					if code == 277 {
						switch {
						default:
							break
						}
					}
					if code == 278 {
						dfr++
						defer o.log1(`defer 278`, dfr)
					}
					o.log(`L0R bot`)
				}
				o.log(`L0Rsel bot`)
			}
			o.log(`L0Rsw bot`)
		}
		o.log(`L0Rfor bot`)
	}
	o.log(`done0R`)
	goto L0Rb
L0Rb:
	o.log(`L0Rb`)
	return 0
}
