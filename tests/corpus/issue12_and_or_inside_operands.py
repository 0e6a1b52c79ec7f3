"""An ``and``/``or`` inside an operand of another (``c or -(a or b)``, ``c or not (a and
b)``: shutil.copystat, shutil._rmtree_isdir): the inner one joins before the operand ends, at
the operation applied to it, not at a test; it raised "unrecognised and/or expression" on every
version. And a chained comparison whose false branch is the jump back to the loop head
(``for ...: if a <= x < b: return x``: uuid.getnode), which raised "unrecognised chained
comparison" on 3.10 and 3.12+."""


def not_of_and(follow_symlinks, src, dst, islink):
    follow = follow_symlinks or not (islink(src) and islink(dst))
    return follow


def negated_or(a, b, c):
    return c and -(a or b)


def attribute_of_and(a, b, c):
    return c or (a and b).real


def middle_operand(a, b, c, d):
    return c or -(a or b) or d


def in_a_call(a, b, c, f):
    x = c and f(a or b, 1)
    return x


def returned_and_not(entry, st, mask, tag):
    try:
        st = entry.stat(follow_symlinks=False)
        return st.mode and not (st.attributes & mask and st.reparse_tag == tag)
    except OSError:
        return False


def chain_in_for(getters, node):
    for getter in getters:
        if 0 <= node < (1 << 48):
            return node


def and_chain_in_for(getters, node):
    for getter in getters:
        try:
            node = getter()
        except:
            continue
        if (node is not None) and (0 <= node < (1 << 48)):
            return node
    assert False, "no node"
