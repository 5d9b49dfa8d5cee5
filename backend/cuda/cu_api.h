/*
 * backend/cuda/cu_api.h - the CUDA driver functions the backend uses,
 * reached through cudaGetDriverEntryPointByVersion instead of linking
 * libcuda: binaries then start (and report "no GPU") on machines without a
 * driver.  After this header, cuXxx(...) calls go through the table; the
 * prototypes are those of the CUDA 13.0 driver API.
 */
#ifndef CES_CU_API_H
#define CES_CU_API_H

#include <cuda.h>

#define CES_CU_FUNCS(X) \
    X(cuCtxCreate) \
    X(cuCtxDestroy) \
    X(cuCtxGetStreamPriorityRange) \
    X(cuCtxPopCurrent) \
    X(cuCtxSetCurrent) \
    X(cuCtxSynchronize) \
    X(cuDeviceCanAccessPeer) \
    X(cuDeviceGet) \
    X(cuDeviceGetAttribute) \
    X(cuDeviceGetCount) \
    X(cuDeviceGetName) \
    X(cuDeviceGetP2PAttribute) \
    X(cuDeviceGetPCIBusId) \
    X(cuDevicePrimaryCtxRelease) \
    X(cuDevicePrimaryCtxRetain) \
    X(cuDeviceTotalMem) \
    X(cuEventCreate) \
    X(cuEventDestroy) \
    X(cuEventRecord) \
    X(cuGetErrorName) \
    X(cuGetErrorString) \
    X(cuInit) \
    X(cuMemAddressFree) \
    X(cuMemAddressReserve) \
    X(cuMemAlloc) \
    X(cuMemCreate) \
    X(cuMemExportToShareableHandle) \
    X(cuMemFree) \
    X(cuMemGetAllocationGranularity) \
    X(cuMemFreeHost) \
    X(cuMemHostAlloc) \
    X(cuMemHostGetDevicePointer) \
    X(cuMemImportFromShareableHandle) \
    X(cuMemMap) \
    X(cuMemRelease) \
    X(cuMemSetAccess) \
    X(cuMemUnmap) \
    X(cuMemcpyDtoHAsync) \
    X(cuMemsetD8Async) \
    X(cuStreamBatchMemOp) \
    X(cuStreamCreate) \
    X(cuStreamCreateWithPriority) \
    X(cuStreamDestroy) \
    X(cuStreamQuery) \
    X(cuStreamSynchronize) \
    X(cuStreamWaitEvent) \
    X(cuStreamWriteValue32) \
    X(cuStreamWriteValue64)

struct ces_cu_api {
    CUresult (CUDAAPI *p_cuCtxCreate)(CUcontext *pctx, CUctxCreateParams *ctxCreateParams, unsigned int flags, CUdevice dev);
    CUresult (CUDAAPI *p_cuCtxDestroy)(CUcontext ctx);
    CUresult (CUDAAPI *p_cuCtxGetStreamPriorityRange)(int *leastPriority, int *greatestPriority);
    CUresult (CUDAAPI *p_cuCtxPopCurrent)(CUcontext *pctx);
    CUresult (CUDAAPI *p_cuCtxSetCurrent)(CUcontext ctx);
    CUresult (CUDAAPI *p_cuCtxSynchronize)(void);
    CUresult (CUDAAPI *p_cuDeviceCanAccessPeer)(int *canAccessPeer, CUdevice dev, CUdevice peerDev);
    CUresult (CUDAAPI *p_cuDeviceGet)(CUdevice *device, int ordinal);
    CUresult (CUDAAPI *p_cuDeviceGetAttribute)(int *pi, CUdevice_attribute attrib, CUdevice dev);
    CUresult (CUDAAPI *p_cuDeviceGetCount)(int *count);
    CUresult (CUDAAPI *p_cuDeviceGetName)(char *name, int len, CUdevice dev);
    CUresult (CUDAAPI *p_cuDeviceGetP2PAttribute)(int *value, CUdevice_P2PAttribute attrib, CUdevice srcDevice, CUdevice dstDevice);
    CUresult (CUDAAPI *p_cuDeviceGetPCIBusId)(char *pciBusId, int len, CUdevice dev);
    CUresult (CUDAAPI *p_cuDevicePrimaryCtxRelease)(CUdevice dev);
    CUresult (CUDAAPI *p_cuDevicePrimaryCtxRetain)(CUcontext *pctx, CUdevice dev);
    CUresult (CUDAAPI *p_cuDeviceTotalMem)(size_t *bytes, CUdevice dev);
    CUresult (CUDAAPI *p_cuEventCreate)(CUevent *phEvent, unsigned int Flags);
    CUresult (CUDAAPI *p_cuEventDestroy)(CUevent hEvent);
    CUresult (CUDAAPI *p_cuEventRecord)(CUevent hEvent, CUstream hStream);
    CUresult (CUDAAPI *p_cuGetErrorName)(CUresult error, const char **pStr);
    CUresult (CUDAAPI *p_cuGetErrorString)(CUresult error, const char **pStr);
    CUresult (CUDAAPI *p_cuInit)(unsigned int Flags);
    CUresult (CUDAAPI *p_cuMemAddressFree)(CUdeviceptr ptr, size_t size);
    CUresult (CUDAAPI *p_cuMemAddressReserve)(CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr, unsigned long long flags);
    CUresult (CUDAAPI *p_cuMemCreate)(CUmemGenericAllocationHandle *handle, size_t size, const CUmemAllocationProp *prop, unsigned long long flags);
    CUresult (CUDAAPI *p_cuMemExportToShareableHandle)(void *shareableHandle, CUmemGenericAllocationHandle handle, CUmemAllocationHandleType handleType, unsigned long long flags);
    CUresult (CUDAAPI *p_cuMemGetAllocationGranularity)(size_t *granularity, const CUmemAllocationProp *prop, CUmemAllocationGranularity_flags option);
    CUresult (CUDAAPI *p_cuMemFreeHost)(void *p);
    CUresult (CUDAAPI *p_cuMemHostAlloc)(void **pp, size_t bytesize, unsigned int Flags);
    CUresult (CUDAAPI *p_cuMemHostGetDevicePointer)(CUdeviceptr *pdptr, void *p, unsigned int Flags);
    CUresult (CUDAAPI *p_cuMemAlloc)(CUdeviceptr *dptr, size_t bytesize);
    CUresult (CUDAAPI *p_cuMemFree)(CUdeviceptr dptr);
    CUresult (CUDAAPI *p_cuMemImportFromShareableHandle)(CUmemGenericAllocationHandle *handle, void *osHandle, CUmemAllocationHandleType shHandleType);
    CUresult (CUDAAPI *p_cuMemMap)(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle, unsigned long long flags);
    CUresult (CUDAAPI *p_cuMemRelease)(CUmemGenericAllocationHandle handle);
    CUresult (CUDAAPI *p_cuMemSetAccess)(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count);
    CUresult (CUDAAPI *p_cuMemUnmap)(CUdeviceptr ptr, size_t size);
    CUresult (CUDAAPI *p_cuMemcpyDtoHAsync)(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream);
    CUresult (CUDAAPI *p_cuMemsetD8Async)(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream);
    CUresult (CUDAAPI *p_cuStreamBatchMemOp)(CUstream stream, unsigned int count, CUstreamBatchMemOpParams *paramArray, unsigned int flags);
    CUresult (CUDAAPI *p_cuStreamCreate)(CUstream *phStream, unsigned int Flags);
    CUresult (CUDAAPI *p_cuStreamCreateWithPriority)(CUstream *phStream, unsigned int flags, int priority);
    CUresult (CUDAAPI *p_cuStreamDestroy)(CUstream hStream);
    CUresult (CUDAAPI *p_cuStreamQuery)(CUstream hStream);
    CUresult (CUDAAPI *p_cuStreamSynchronize)(CUstream hStream);
    CUresult (CUDAAPI *p_cuStreamWaitEvent)(CUstream hStream, CUevent hEvent, unsigned int Flags);
    CUresult (CUDAAPI *p_cuStreamWriteValue32)(CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags);
    CUresult (CUDAAPI *p_cuStreamWriteValue64)(CUstream stream, CUdeviceptr addr, cuuint64_t value, unsigned int flags);
};

/* The table, loaded once per process; NULL when the driver or one of the
 * functions is missing (then nothing of the backend can run). */
const struct ces_cu_api *ces_cu_load(void);
/* The loaded table; only valid after ces_cu_load returned non-NULL. */
const struct ces_cu_api *ces_cu(void);
/* The driver function `name` (CUDA 13.0's version of it), reached the same
 * way, for callers that need one the table does not carry; NULL if none. */
void *ces_cu_sym(const char *name);

#undef cuCtxCreate
#define cuCtxCreate (ces_cu()->p_cuCtxCreate)
#undef cuCtxDestroy
#define cuCtxDestroy (ces_cu()->p_cuCtxDestroy)
#undef cuCtxGetStreamPriorityRange
#define cuCtxGetStreamPriorityRange (ces_cu()->p_cuCtxGetStreamPriorityRange)
#undef cuCtxPopCurrent
#define cuCtxPopCurrent (ces_cu()->p_cuCtxPopCurrent)
#undef cuCtxSetCurrent
#define cuCtxSetCurrent (ces_cu()->p_cuCtxSetCurrent)
#undef cuCtxSynchronize
#define cuCtxSynchronize (ces_cu()->p_cuCtxSynchronize)
#undef cuDeviceCanAccessPeer
#define cuDeviceCanAccessPeer (ces_cu()->p_cuDeviceCanAccessPeer)
#undef cuDeviceGet
#define cuDeviceGet (ces_cu()->p_cuDeviceGet)
#undef cuDeviceGetAttribute
#define cuDeviceGetAttribute (ces_cu()->p_cuDeviceGetAttribute)
#undef cuDeviceGetCount
#define cuDeviceGetCount (ces_cu()->p_cuDeviceGetCount)
#undef cuDeviceGetName
#define cuDeviceGetName (ces_cu()->p_cuDeviceGetName)
#undef cuDeviceGetP2PAttribute
#define cuDeviceGetP2PAttribute (ces_cu()->p_cuDeviceGetP2PAttribute)
#undef cuDeviceGetPCIBusId
#define cuDeviceGetPCIBusId (ces_cu()->p_cuDeviceGetPCIBusId)
#undef cuDevicePrimaryCtxRelease
#define cuDevicePrimaryCtxRelease (ces_cu()->p_cuDevicePrimaryCtxRelease)
#undef cuDevicePrimaryCtxRetain
#define cuDevicePrimaryCtxRetain (ces_cu()->p_cuDevicePrimaryCtxRetain)
#undef cuDeviceTotalMem
#define cuDeviceTotalMem (ces_cu()->p_cuDeviceTotalMem)
#undef cuEventCreate
#define cuEventCreate (ces_cu()->p_cuEventCreate)
#undef cuEventDestroy
#define cuEventDestroy (ces_cu()->p_cuEventDestroy)
#undef cuEventRecord
#define cuEventRecord (ces_cu()->p_cuEventRecord)
#undef cuGetErrorName
#define cuGetErrorName (ces_cu()->p_cuGetErrorName)
#undef cuGetErrorString
#define cuGetErrorString (ces_cu()->p_cuGetErrorString)
#undef cuInit
#define cuInit (ces_cu()->p_cuInit)
#undef cuMemAddressFree
#define cuMemAddressFree (ces_cu()->p_cuMemAddressFree)
#undef cuMemAddressReserve
#define cuMemAddressReserve (ces_cu()->p_cuMemAddressReserve)
#undef cuMemCreate
#define cuMemCreate (ces_cu()->p_cuMemCreate)
#undef cuMemExportToShareableHandle
#define cuMemExportToShareableHandle (ces_cu()->p_cuMemExportToShareableHandle)
#undef cuMemGetAllocationGranularity
#define cuMemGetAllocationGranularity (ces_cu()->p_cuMemGetAllocationGranularity)
#undef cuMemFreeHost
#define cuMemFreeHost (ces_cu()->p_cuMemFreeHost)
#undef cuMemHostAlloc
#define cuMemHostAlloc (ces_cu()->p_cuMemHostAlloc)
#undef cuMemHostGetDevicePointer
#define cuMemHostGetDevicePointer (ces_cu()->p_cuMemHostGetDevicePointer)
#undef cuMemAlloc
#define cuMemAlloc (ces_cu()->p_cuMemAlloc)
#undef cuMemFree
#define cuMemFree (ces_cu()->p_cuMemFree)
#undef cuMemImportFromShareableHandle
#define cuMemImportFromShareableHandle (ces_cu()->p_cuMemImportFromShareableHandle)
#undef cuMemMap
#define cuMemMap (ces_cu()->p_cuMemMap)
#undef cuMemRelease
#define cuMemRelease (ces_cu()->p_cuMemRelease)
#undef cuMemSetAccess
#define cuMemSetAccess (ces_cu()->p_cuMemSetAccess)
#undef cuMemUnmap
#define cuMemUnmap (ces_cu()->p_cuMemUnmap)
#undef cuMemcpyDtoHAsync
#define cuMemcpyDtoHAsync (ces_cu()->p_cuMemcpyDtoHAsync)
#undef cuMemsetD8Async
#define cuMemsetD8Async (ces_cu()->p_cuMemsetD8Async)
#undef cuStreamBatchMemOp
#define cuStreamBatchMemOp (ces_cu()->p_cuStreamBatchMemOp)
#undef cuStreamCreate
#define cuStreamCreate (ces_cu()->p_cuStreamCreate)
#undef cuStreamCreateWithPriority
#define cuStreamCreateWithPriority (ces_cu()->p_cuStreamCreateWithPriority)
#undef cuStreamDestroy
#define cuStreamDestroy (ces_cu()->p_cuStreamDestroy)
#undef cuStreamQuery
#define cuStreamQuery (ces_cu()->p_cuStreamQuery)
#undef cuStreamSynchronize
#define cuStreamSynchronize (ces_cu()->p_cuStreamSynchronize)
#undef cuStreamWaitEvent
#define cuStreamWaitEvent (ces_cu()->p_cuStreamWaitEvent)
#undef cuStreamWriteValue32
#define cuStreamWriteValue32 (ces_cu()->p_cuStreamWriteValue32)
#undef cuStreamWriteValue64
#define cuStreamWriteValue64 (ces_cu()->p_cuStreamWriteValue64)

#endif
