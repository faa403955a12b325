"""The short paths of issue 13's fixed-cost work: linalg.inv / linalg.solve's straight-to-the-node
calls (float64 numfuse stacks) against NumPy beside the general path's cases (other dtypes, lists,
broadcast batches, errors), and CUDA's reuse of large freed blocks (the null stream's large-block
cache): results held across a loop whose freed outputs are handed out again stay intact."""
import numpy
import pytest

from harness import numfuse_module, oracle


def _stack(shape, seed, shift=4.0):
    rng = numpy.random.default_rng(seed)
    return rng.standard_normal(shape) + shift * numpy.eye(shape[-1])


@pytest.mark.parametrize("shape", [(8, 8), (1, 8, 8), (300, 3, 3), (2, 5, 4, 4), (0, 8, 8), (4, 0, 0)])
def test_inv_float64_stack(shape, device):
    a = _stack(shape, 1)

    @oracle(rtol=1e-10, atol=1e-10)
    def body(xp):
        return xp.linalg.inv(xp.asarray(a))
    body(device=device)


@pytest.mark.parametrize("dtype", ["float32", "int64", "complex64"])
def test_inv_other_dtypes_take_the_general_path(dtype, device):
    a = (_stack((20, 4, 4), 2) * 3).astype(dtype)

    @oracle(rtol=1e-4, atol=1e-4)
    def body(xp):
        return xp.linalg.inv(xp.asarray(a))
    body(device=device)


@pytest.mark.parametrize("shapes", [((8, 8), (8, 3)), ((300, 4, 4), (300, 4, 1)),
                                    ((2, 3, 5, 5), (2, 3, 5, 2)), ((3, 4, 4), (3, 4, 0)),
                                    ((3, 4, 4), (1, 4, 2)), ((3, 4, 4), (4,)), ((4, 4), (3, 4, 2))])
def test_solve_float64(shapes, device):
    a = _stack(shapes[0], 3)
    b = numpy.random.default_rng(4).standard_normal(shapes[1])

    @oracle(rtol=1e-10, atol=1e-10)
    def body(xp):
        return xp.linalg.solve(xp.asarray(a), xp.asarray(b))
    body(device=device)


@pytest.mark.parametrize("case", ["singular", "not square", "1-d", "core mismatch", "int b"])
def test_errors_as_numpy(case, device):
    a = _stack((5, 4, 4), 5)
    b = numpy.ones((5, 4, 2))
    if case == "singular":
        a[3] = 0
    elif case == "not square":
        a = a[..., :3]
    elif case == "1-d":
        a = a[0, 0]
    elif case == "core mismatch":
        b = numpy.ones((5, 3, 2))
    else:
        b = numpy.ones((5, 4, 2), dtype=numpy.int64)

    @oracle(rtol=1e-10, atol=1e-10)
    def body(xp):
        x = xp.asarray(a)
        return xp.linalg.inv(x), xp.linalg.solve(x, xp.asarray(b))
    body(device=device)


def test_held_results_survive_block_reuse(device):
    """Outputs over 1 MB freed in a loop are handed out again to later calls (CUDA's large-block
    cache): every result still held must keep its own values."""
    nf = numfuse_module()
    if nf is None:
        pytest.skip("numfuse is not importable")
    batch = 4096  # 2 MB a stack: above the small-block classes
    stacks = [_stack((batch, 8, 8), 10 + i) for i in range(6)]
    xs = [nf.asarray(s, device=device) for s in stacks]
    held = {}
    for rep in range(3):
        for i, x in enumerate(xs):
            r = nf.linalg.inv(x)
            if (i + rep) % 2 == 0:
                held[(rep, i)] = r  # the others are freed at once, their blocks reused
            y = nf.linalg.solve(x, r)  # another output of the same size, freed at once
            del y
    for (rep, i), r in held.items():
        numpy.testing.assert_allclose(nf.asnumpy(r), numpy.linalg.inv(stacks[i]),
                                      rtol=1e-10, atol=1e-10, err_msg=f"rep {rep}, stack {i}")
