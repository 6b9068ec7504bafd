/*
 * A stand-in for Windows' bcryptprimitives.dll, for running gk.exe (and the
 * Claude Code client) under Wine 8, which does not ship that DLL.
 *
 * Rust's std (1.78 and later) takes its random bytes from
 * bcryptprimitives!ProcessPrng; a program that imports it does not start when
 * the DLL is missing. This file provides ProcessPrng on top of
 * advapi32!SystemFunction036 (RtlGenRandom), which Wine has. Only
 * scripts/windows-cross-test.sh uses it, and only inside a Wine prefix; it is
 * never shipped with gk.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    /* RtlGenRandom takes a ULONG; fill larger requests in chunks. */
    while (length > 0) {
        ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}

BOOL WINAPI DllMain(HINSTANCE instance, DWORD reason, LPVOID reserved)
{
    (void)instance;
    (void)reason;
    (void)reserved;
    return TRUE;
}
