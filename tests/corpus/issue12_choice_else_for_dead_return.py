"""Choice point else-for-dead-return (decompiler/choices.py): on 3.8/3.9 a dead `return None`
after a compound statement says the code before it ended in an if (or try) whose else was
flattened, but not which if: moving the tail into an else is right for `convert` (the
function's own dead return) and wrong for the inner if of `warning`; verify picks."""


def warning(root):
    if cocoa():
        level = root.call('info')
        if level not in ('8.5.7', '8.5.9'):
            return False
        return 'warning {0}'.format(level)
    else:
        return False


def convert(gr, raw_node):
    type, value, context, children = raw_node
    if children or type in gr.number2symbol:
        if len(children) == 1:
            return children[0]
        return Node(type, children, context=context)
    else:
        return Leaf(type, value, context=context)
