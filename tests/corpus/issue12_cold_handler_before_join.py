"""3.12+: a try whose body returns, nested in ifs, followed by more code in the same branch
(email.contentmanager._encode_text). The handler is laid out after everything; the walk of
that layout fails ("stack underflow" at PUSH_EXC_INFO), and the same program with the
handler put back in front of the code the try goes on with (block_order.py, as 3.11 lays it
out) reads as written."""


def encode_text(lines, policy, cte):
    if cte is None:
        if max(lines) <= policy.max_line_length:
            try:
                return '7bit', normal_body(lines).decode('ascii')
            except UnicodeDecodeError:
                pass
            if policy.cte_type == '8bit':
                return '8bit', normal_body(lines).decode('ascii', 'surrogateescape')
        sniff = embedded_body(lines[:10])
        if len(sniff) > 3:
            cte = 'base64'
        else:
            cte = 'quoted-printable'
    return cte, lines
