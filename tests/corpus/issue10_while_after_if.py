"""A while loop right after an if, in a loop body (issue 10).

3.12/3.13 thread the while's exit to the outer loop's head. 3.14+ test a while at the top
only and lay this one out as `POP_JUMP_IF_TRUE body; JUMP exit` (or a test that jumps back to
the outer head), the outer loop's last back edge being the inner loop's test."""


def if_then_while_in_for(x, y):
    for a in x:
        if a:
            y = 1
        while y:
            y -= 1


def if_then_while_in_while(x, y):
    while x:
        x -= 1
        if x > y:
            y = 1
        while y and x:
            y -= 1
    return y
