# Shows: super() in a method: on 3.9/3.10 the method decompiled alone loses its __class__
# free variable; LOAD_SUPER_ATTR (3.12+) is not handled; 3.14 class bodies also start with
# LOAD_LOCALS / STORE_DEREF __classdict__ (implicit, emit nothing).
class C(B):
    def m(self):
        return super().m()
