"""A call with many keyword arguments (more than the compiler passes on the stack: it builds
a dict, BUILD_MAP then MAP_ADD per keyword, and calls CALL_FUNCTION_EX) whose last value is a
conditional expression: from 3.10 the tail is copied into both branches, and the walk of the
first branch added its item to the dict display the second branch adds to as well, which
came out as ``loss=loss, loss=loss if r else None`` -- an output that does not compile
(3.10, 3.12, 3.13; transformers' PeAudioVideoModel.forward). A walk now adds to its own copy
of a display made before it (expressions._literal_target)."""


def many_keywords(O, a, loss, r):
    return O(k0=a, k1=a, k2=a, k3=a, k4=a, k5=a, k6=a, k7=a, k8=a, k9=a, k10=a, k11=a, k12=a, k13=a, k14=a, k15=a, k16=a, k17=a, k18=a, k19=a, loss=loss if r else None)


def many_keywords_two_conditionals(O, a, loss, r):
    return O(k0=a, k1=a, k2=a, k3=a, k4=a, k5=a, k6=a, k7=a, k8=a, k9=a, k10=a, k11=a, k12=a, k13=a, k14=a, k15=a, k16=a, k17=a, k18=a, k19=a, x=a if r else None, loss=loss if r else None)

