"""numfuse.fft: NumPy's fft namespace. pocketfft computes the transforms on the CPU and cuFFT on
CUDA (docs/decisions.md, "FFT on the CPU"); numfuse.fft.config holds cuFFT's plan cache under
CuPy's names."""
from .._fft import (fft, ifft, rfft, irfft, hfft, ihfft, fftn, ifftn, rfftn, irfftn,  # noqa: F401
                    fft2, ifft2, rfft2, irfft2)
from .._fft_helper import fftfreq, rfftfreq, fftshift, ifftshift  # noqa: F401
from . import config  # noqa: F401


__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fftn", "ifftn", "rfftn", "irfftn",
           "fft2", "ifft2", "rfft2", "irfft2", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]
