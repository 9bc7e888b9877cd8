!> Module hzio: Fortran 2008 bindings of hzio's C API (hzio.h, hzio_mpi.h), through ISO_C_BINDING.
!>
!> Write a checkpoint collectively and read it back with any rank count, at any resolution level,
!> in the IDX hierarchical-Z format (byte-compatible with OpenVisus and PIDX):
!>
!>   call hzio_desc_create(desc, [nx, ny, nz])
!>   call hzio_desc_add_field(desc, "pressure", "float64")
!>   call hzio_writer_create_mpi(writer, "ckpt/sim.idx", desc, MPI_COMM_WORLD, HZIO_OVERWRITE)
!>   call hzio_writer_add(writer, "pressure", 0_int64, offset, p)      ! p(x, y, z): this rank's box
!>   call hzio_writer_write(writer)                                     ! collective
!>
!> Conventions (those of hzio.h, made Fortran):
!>  - Every procedure takes an optional last argument `status`. Given, it receives HZIO_OK or an
!>    error code and hzio_last_error() tells what was wrong; absent, an error prints that message
!>    and stops the program (error stop).
!>  - Offsets are 0-based global sample coordinates (x first), sizes and counts integer(c_int64_t).
!>  - Arrays are indexed (x, y, z), x fastest; a vector field's components come first:
!>    v(3, nx, ny, nz) for "float64[3]". Add takes the box count from the array's shape.
!>  - hzio_writer_add keeps a pointer to the array, not a copy, until hzio_writer_write: pass
!>    contiguous arrays declared TARGET (or ALLOCATABLE, TARGET) and leave them alone until then.
!>  - Field indices (hzio_desc_get_field) are 1-based.
!>  - Communicators are `integer` handles (use mpi) or, when hzio was built with mpi_f08,
!>    type(MPI_Comm); so are the hints of the collective writer and reader, an MPI_Info given as
!>    `info=` (keys "memory_budget", "aggregators", "threads": hzio_mpi.h).
!>  - Handles are freed with the matching _free (collective for collective handles, and before
!>    MPI_Finalize).
module hzio
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: error_unit
#ifdef HZIO_HAVE_MPI_F08
  use mpi_f08, only: MPI_Comm, MPI_Info
#endif
  use hzio_c_bindings
  implicit none
  private

  ! Statuses: one per hzio::ErrorCode (hzio.h).
  integer, parameter, public :: HZIO_OK = 0, HZIO_ERR_INVALID_ARGUMENT = 1, HZIO_ERR_NOT_FOUND = 2, &
    HZIO_ERR_OUT_OF_RANGE = 3, HZIO_ERR_CORRUPT = 4, HZIO_ERR_UNSUPPORTED = 5, HZIO_ERR_IO = 6, &
    HZIO_ERR_TOO_LARGE = 7, HZIO_ERR_UNAVAILABLE = 8, HZIO_ERR_CHANGED = 9, HZIO_ERR_LOCKED = 10, &
    HZIO_ERR_INTERNAL = 11
  integer, parameter, public :: HZIO_MAX_DIMS = 5, HZIO_FULL_RESOLUTION = -1
  integer, parameter, public :: HZIO_LAYOUT_HZ = 0, HZIO_LAYOUT_ROW_MAJOR = 1
  ! Flags (combine with ior).
  integer, parameter, public :: HZIO_OVERWRITE = 1, HZIO_SYNC = 2, HZIO_UPDATE = 4, HZIO_ONE_PHASE = 8, &
                                  HZIO_PIDX_COMPATIBLE = 16

  type, public :: hzio_desc
    private
    type(c_ptr) :: ptr = c_null_ptr
  end type
  type, public :: hzio_writer
    private
    type(c_ptr) :: ptr = c_null_ptr
  end type
  type, public :: hzio_reader
    private
    type(c_ptr) :: ptr = c_null_ptr
  end type

  public :: hzio_io_stats  ! what a write or read moved (hzio_c_bindings.f90)
  public :: hzio_last_error, hzio_status_name, hzio_version
  public :: hzio_desc_create, hzio_desc_free, hzio_desc_add_field, hzio_desc_set_timesteps, &
    hzio_desc_set_bits_per_block, hzio_desc_set_blocks_per_file, hzio_desc_set_compression, hzio_desc_set_layout, &
    hzio_desc_get_dims, hzio_desc_get_maxh, hzio_desc_get_num_fields, hzio_desc_get_field, hzio_desc_get_timesteps
  public :: hzio_writer_create, hzio_writer_create_mpi, hzio_writer_add, hzio_writer_write, hzio_writer_get_desc, &
    hzio_writer_get_stats, hzio_writer_free
  public :: hzio_reader_open, hzio_reader_open_mpi, hzio_reader_get_desc, hzio_reader_query_grid, hzio_reader_read, &
    hzio_reader_get_stats, hzio_reader_free

  !> Collective writer on an MPI communicator (integer handle, or type(MPI_Comm)).
  interface hzio_writer_create_mpi
    module procedure writer_create_mpi_int
#ifdef HZIO_HAVE_MPI_F08
    module procedure writer_create_mpi_f08
#endif
  end interface
  !> Collective reader on an MPI communicator (integer handle, or type(MPI_Comm)).
  interface hzio_reader_open_mpi
    module procedure reader_open_mpi_int
#ifdef HZIO_HAVE_MPI_F08
    module procedure reader_open_mpi_f08
#endif
  end interface
  !> hzio_writer_add(writer, field, time, offset, data [, status]): an array of any of the
  !> integer(c_int8_t/16/32/64) and real(c_float/c_double) kinds, rank 1 to 5; or
  !> hzio_writer_add(writer, field, time, offset, count, ptr [, status]) with a type(c_ptr).
  interface hzio_writer_add
    module procedure writer_add_ptr
    include "hzio_array_writer_procedures.inc"
  end interface
  !> hzio_reader_read(reader, field, time, level, offset, count, data [, status]): into an array
  !> holding exactly the samples hzio_reader_query_grid names (same kinds and ranks as add), or
  !> into a type(c_ptr).
  interface hzio_reader_read
    module procedure reader_read_ptr
    include "hzio_array_reader_procedures.inc"
  end interface

contains

  ! ---- strings and statuses --------------------------------------------------------------------

  !> A Fortran string as a NUL-terminated C string (trailing blanks dropped).
  pure function c_chars(s) result(c)
    character(*), intent(in) :: s
    character(kind=c_char) :: c(len_trim(s) + 1)
    integer :: i
    do i = 1, len_trim(s)
      c(i) = s(i:i)
    end do
    c(len_trim(s) + 1) = c_null_char
  end function

  !> `field` as a C string held in `buffer` (which must outlive the pointer), or NULL if absent.
  function optional_chars(buffer, field) result(p)
    character(kind=c_char), allocatable, target, intent(inout) :: buffer(:)
    character(*), intent(in), optional :: field
    type(c_ptr) :: p
    p = c_null_ptr
    if (present(field)) then
      buffer = c_chars(field)
      p = c_loc(buffer)
    end if
  end function

  !> A C string (NULL gives '') as a Fortran string.
  function f_string(p) result(s)
    type(c_ptr), intent(in) :: p
    character(:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    if (.not. c_associated(p)) then
      s = ''
      return
    end if
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate (character(n) :: s)
    do i = 1, n
      s(i:i) = chars(i)
    end do
  end function

  !> Hands a status to the caller, or (no `status` argument) stops on an error with its message.
  subroutine finish(s, status)
    integer(c_int), intent(in) :: s
    integer, intent(out), optional :: status
    if (present(status)) then
      status = int(s)
    else if (s /= HZIO_OK) then
      write (error_unit, '(a)') 'hzio: ' // hzio_last_error()
      error stop 1
    end if
  end subroutine

  !> The message of this thread's last failed call ('' if none).
  function hzio_last_error() result(message)
    character(:), allocatable :: message
    message = f_string(c_last_error())
  end function

  !> "ok", "invalid_argument", "not_found", ...
  function hzio_status_name(status) result(name)
    integer, intent(in) :: status
    character(:), allocatable :: name
    name = f_string(c_status_name(int(status, c_int)))
  end function

  function hzio_version() result(version)
    character(:), allocatable :: version
    version = f_string(c_version())
  end function

  ! ---- descriptions ----------------------------------------------------------------------------

  !> A description of a dataset of size(dims) axes with dims(d) samples on axis d (x first).
  subroutine hzio_desc_create(desc, dims, status)
    type(hzio_desc), intent(out) :: desc
    integer(c_int64_t), intent(in) :: dims(:)
    integer, intent(out), optional :: status
    call finish(c_desc_create(int(size(dims), c_int), dims, desc%ptr), status)
  end subroutine

  subroutine hzio_desc_free(desc, status)
    type(hzio_desc), intent(inout) :: desc
    integer, intent(out), optional :: status
    integer(c_int) :: s
    s = c_desc_free(desc%ptr)
    if (s == HZIO_OK) desc%ptr = c_null_ptr
    call finish(s, status)
  end subroutine

  !> Adds a field of an IDX dtype: "float64", "float32", "int32", "uint8", "float64[3]", ...
  subroutine hzio_desc_add_field(desc, name, dtype, status)
    type(hzio_desc), intent(in) :: desc
    character(*), intent(in) :: name, dtype
    integer, intent(out), optional :: status
    call finish(c_desc_add_field(desc%ptr, c_chars(name), c_chars(dtype)), status)
  end subroutine

  subroutine hzio_desc_set_timesteps(desc, first, last, status)
    type(hzio_desc), intent(in) :: desc
    integer(c_int64_t), intent(in) :: first, last
    integer, intent(out), optional :: status
    call finish(c_desc_set_timesteps(desc%ptr, first, last), status)
  end subroutine

  subroutine hzio_desc_set_bits_per_block(desc, bits, status)
    type(hzio_desc), intent(in) :: desc
    integer, intent(in) :: bits
    integer, intent(out), optional :: status
    call finish(c_desc_set_bits_per_block(desc%ptr, int(bits, c_int)), status)
  end subroutine

  subroutine hzio_desc_set_blocks_per_file(desc, blocks, status)
    type(hzio_desc), intent(in) :: desc
    integer(c_int64_t), intent(in) :: blocks
    integer, intent(out), optional :: status
    call finish(c_desc_set_blocks_per_file(desc%ptr, blocks), status)
  end subroutine

  !> "raw", "zip" or "lz4" for `field`, or for every field when `field` is absent.
  subroutine hzio_desc_set_compression(desc, compression, field, status)
    type(hzio_desc), intent(in) :: desc
    character(*), intent(in) :: compression
    character(*), intent(in), optional :: field
    integer, intent(out), optional :: status
    character(kind=c_char), allocatable, target :: name(:)
    call finish(c_desc_set_compression(desc%ptr, optional_chars(name, field), c_chars(compression)), status)
  end subroutine

  !> HZIO_LAYOUT_HZ or HZIO_LAYOUT_ROW_MAJOR for `field`, or for every field when it is absent.
  subroutine hzio_desc_set_layout(desc, layout, field, status)
    type(hzio_desc), intent(in) :: desc
    integer, intent(in) :: layout
    character(*), intent(in), optional :: field
    integer, intent(out), optional :: status
    character(kind=c_char), allocatable, target :: name(:)
    call finish(c_desc_set_layout(desc%ptr, optional_chars(name, field), int(layout, c_int)), status)
  end subroutine

  !> The samples per axis, x first.
  subroutine hzio_desc_get_dims(desc, dims, status)
    type(hzio_desc), intent(in) :: desc
    integer(c_int64_t), allocatable, intent(out) :: dims(:)
    integer, intent(out), optional :: status
    integer(c_int64_t) :: all(HZIO_MAX_DIMS)
    integer(c_int) :: ndims, s
    s = c_desc_get_dims(desc%ptr, ndims, all)
    if (s == HZIO_OK) dims = all(1:ndims)
    call finish(s, status)
  end subroutine

  subroutine hzio_desc_get_maxh(desc, maxh, status)
    type(hzio_desc), intent(in) :: desc
    integer, intent(out) :: maxh
    integer, intent(out), optional :: status
    integer(c_int) :: s, m
    s = c_desc_get_maxh(desc%ptr, m)
    if (s == HZIO_OK) maxh = int(m)
    call finish(s, status)
  end subroutine

  subroutine hzio_desc_get_num_fields(desc, count, status)
    type(hzio_desc), intent(in) :: desc
    integer, intent(out) :: count
    integer, intent(out), optional :: status
    integer(c_int) :: s, n
    s = c_desc_get_num_fields(desc%ptr, n)
    if (s == HZIO_OK) count = int(n)
    call finish(s, status)
  end subroutine

  !> Field `index` (1-based): its name, dtype ("float64[3]"), components, bytes per sample and codec.
  subroutine hzio_desc_get_field(desc, index, name, dtype, components, sample_bytes, compression, status)
    type(hzio_desc), intent(in) :: desc
    integer, intent(in) :: index
    character(:), allocatable, intent(out), optional :: name, dtype, compression
    integer, intent(out), optional :: components
    integer(c_int64_t), intent(out), optional :: sample_bytes
    integer, intent(out), optional :: status
    type(c_ptr) :: n, d, c
    integer(c_int) :: s, k, count
    integer(c_int64_t) :: b
    character(32) :: text
    s = c_desc_get_num_fields(desc%ptr, count)
    if (s == HZIO_OK .and. (index < 1 .or. index > count)) then  ! said in Fortran's 1-based terms
      write (text, '(i0,a,i0)') index, ' is outside 1..', count
      s = c_fail(HZIO_ERR_NOT_FOUND, c_chars('hzio_desc_get_field: field index ' // trim(text)))
    end if
    if (s == HZIO_OK) s = c_desc_get_field(desc%ptr, int(index - 1, c_int), n, d, k, b)
    if (s == HZIO_OK) s = c_desc_get_field_compression(desc%ptr, int(index - 1, c_int), c)
    if (s == HZIO_OK) then
      if (present(name)) name = f_string(n)
      if (present(dtype)) dtype = f_string(d)
      if (present(compression)) compression = f_string(c)
      if (present(components)) components = int(k)
      if (present(sample_bytes)) sample_bytes = b
    end if
    call finish(s, status)
  end subroutine

  !> The declared timesteps, ascending.
  subroutine hzio_desc_get_timesteps(desc, times, status)
    type(hzio_desc), intent(in) :: desc
    integer(c_int64_t), allocatable, intent(out) :: times(:)
    integer, intent(out), optional :: status
    integer(c_int64_t) :: total, filled, none(1)
    integer(c_int) :: s
    total = 0
    s = c_desc_get_timesteps(desc%ptr, 0_c_int64_t, none, total)
    if (s == HZIO_OK) then
      allocate (times(total))
      s = c_desc_get_timesteps(desc%ptr, total, times, filled)
    end if
    call finish(s, status)
  end subroutine

  ! ---- writers ---------------------------------------------------------------------------------

  !> A serial writer (no MPI) of a new dataset at `path`; flags HZIO_SYNC, HZIO_UPDATE.
  subroutine hzio_writer_create(writer, path, desc, flags, status)
    type(hzio_writer), intent(out) :: writer
    character(*), intent(in) :: path
    type(hzio_desc), intent(in) :: desc
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: status
    call finish(c_writer_create(c_chars(path), desc%ptr, flags_or_zero(flags), writer%ptr), status)
  end subroutine

  subroutine writer_create_mpi_int(writer, path, desc, comm, flags, status, info)
    type(hzio_writer), intent(out) :: writer
    character(*), intent(in) :: path
    type(hzio_desc), intent(in) :: desc
    integer, intent(in) :: comm
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: status
    integer, intent(in), optional :: info  ! an MPI_Info of hints (hzio_mpi.h)
    if (present(info)) then
      call finish(c_writer_create_mpi_info_f(int(comm, c_int), c_chars(path), desc%ptr, flags_or_zero(flags), &
                                             int(info, c_int), writer%ptr), status)
    else
      call finish(c_writer_create_mpi_f(int(comm, c_int), c_chars(path), desc%ptr, flags_or_zero(flags), writer%ptr), &
                  status)
    end if
  end subroutine

#ifdef HZIO_HAVE_MPI_F08
  subroutine writer_create_mpi_f08(writer, path, desc, comm, flags, status, info)
    type(hzio_writer), intent(out) :: writer
    character(*), intent(in) :: path
    type(hzio_desc), intent(in) :: desc
    type(MPI_Comm), intent(in) :: comm
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: status
    type(MPI_Info), intent(in), optional :: info
    if (present(info)) then
      call writer_create_mpi_int(writer, path, desc, comm%MPI_VAL, flags, status, info%MPI_VAL)
    else
      call writer_create_mpi_int(writer, path, desc, comm%MPI_VAL, flags, status)
    end if
  end subroutine
#endif

  subroutine hzio_writer_free(writer, status)
    type(hzio_writer), intent(inout) :: writer
    integer, intent(out), optional :: status
    integer(c_int) :: s
    s = c_writer_free(writer%ptr)
    if (s == HZIO_OK) writer%ptr = c_null_ptr
    call finish(s, status)
  end subroutine

  !> Registers `count` samples at `offset` from raw memory.
  subroutine writer_add_ptr(writer, field, time, offset, count, data, status)
    type(hzio_writer), intent(in) :: writer
    character(*), intent(in) :: field
    integer(c_int64_t), intent(in) :: time, offset(:), count(:)
    type(c_ptr), intent(in) :: data
    integer, intent(out), optional :: status
    call finish(c_writer_add(writer%ptr, c_chars(field), time, offset, count, data), status)
  end subroutine

  ! The array forms of hzio_writer_add: the array must be contiguous, as hzio keeps its address
  ! until the write (a copy-in temporary would be gone by then); `first` and `last` locate its
  ! first and last elements.
  subroutine add_array(writer, field, time, offset, shape, element_bytes, first, last, elements, status)
    type(hzio_writer), intent(in) :: writer
    character(*), intent(in) :: field
    integer(c_int64_t), intent(in) :: time, offset(:), shape(:), elements
    integer, intent(in) :: element_bytes
    type(c_ptr), intent(in) :: first, last
    integer, intent(out), optional :: status
    integer(c_intptr_t) :: span
    integer(c_int) :: s
    span = transfer(last, span) - transfer(first, span)
    if (span /= (elements - 1) * element_bytes .and. elements > 0) then
      s = c_fail(HZIO_ERR_INVALID_ARGUMENT, c_chars('hzio_writer_add: the array for field ''' // trim(field) // &
        ''' is not contiguous (hzio keeps its address until hzio_writer_write: pass a whole array)'))
    else
      s = c_writer_add_array(writer%ptr, c_chars(field), time, offset, int(size(shape), c_int), shape, &
                             int(element_bytes, c_int), first)
    end if
    call finish(s, status)
  end subroutine

  !> Writes every registered box, then the .idx (collective for collective writers).
  subroutine hzio_writer_write(writer, status)
    type(hzio_writer), intent(in) :: writer
    integer, intent(out), optional :: status
    call finish(c_writer_write(writer%ptr), status)
  end subroutine

  !> The description being written (borrowed: never free it).
  subroutine hzio_writer_get_desc(writer, desc, status)
    type(hzio_writer), intent(in) :: writer
    type(hzio_desc), intent(out) :: desc
    integer, intent(out), optional :: status
    call finish(c_writer_get_desc(writer%ptr, desc%ptr), status)
  end subroutine

  subroutine hzio_writer_get_stats(writer, stats, status)
    type(hzio_writer), intent(in) :: writer
    type(hzio_io_stats), intent(out) :: stats
    integer, intent(out), optional :: status
    call finish(c_writer_get_stats(writer%ptr, stats), status)
  end subroutine

  ! ---- readers ---------------------------------------------------------------------------------

  !> A serial reader of a .idx path or an http(s) mod_visus URL.
  subroutine hzio_reader_open(reader, path, status)
    type(hzio_reader), intent(out) :: reader
    character(*), intent(in) :: path
    integer, intent(out), optional :: status
    call finish(c_reader_open(c_chars(path), 0_c_int, reader%ptr), status)
  end subroutine

  subroutine reader_open_mpi_int(reader, path, comm, flags, status, info)
    type(hzio_reader), intent(out) :: reader
    character(*), intent(in) :: path
    integer, intent(in) :: comm
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: status
    integer, intent(in), optional :: info  ! an MPI_Info of hints (hzio_mpi.h)
    if (present(info)) then
      call finish(c_reader_open_mpi_info_f(int(comm, c_int), c_chars(path), flags_or_zero(flags), int(info, c_int), &
                                           reader%ptr), status)
    else
      call finish(c_reader_open_mpi_f(int(comm, c_int), c_chars(path), flags_or_zero(flags), reader%ptr), status)
    end if
  end subroutine

#ifdef HZIO_HAVE_MPI_F08
  subroutine reader_open_mpi_f08(reader, path, comm, flags, status, info)
    type(hzio_reader), intent(out) :: reader
    character(*), intent(in) :: path
    type(MPI_Comm), intent(in) :: comm
    integer, intent(in), optional :: flags
    integer, intent(out), optional :: status
    type(MPI_Info), intent(in), optional :: info
    if (present(info)) then
      call reader_open_mpi_int(reader, path, comm%MPI_VAL, flags, status, info%MPI_VAL)
    else
      call reader_open_mpi_int(reader, path, comm%MPI_VAL, flags, status)
    end if
  end subroutine
#endif

  subroutine hzio_reader_free(reader, status)
    type(hzio_reader), intent(inout) :: reader
    integer, intent(out), optional :: status
    integer(c_int) :: s
    s = c_reader_free(reader%ptr)
    if (s == HZIO_OK) reader%ptr = c_null_ptr
    call finish(s, status)
  end subroutine

  !> The dataset's description (borrowed: never free it).
  subroutine hzio_reader_get_desc(reader, desc, status)
    type(hzio_reader), intent(in) :: reader
    type(hzio_desc), intent(out) :: desc
    integer, intent(out), optional :: status
    call finish(c_reader_get_desc(reader%ptr, desc%ptr), status)
  end subroutine

  !> The samples a read of (offset, count) at `level` returns: grid_count(d) of them on axis d, at
  !> origin(d) + k*stride(d). A box without samples at that level gets zero counts.
  subroutine hzio_reader_query_grid(reader, offset, count, level, grid_count, origin, stride, status)
    type(hzio_reader), intent(in) :: reader
    integer(c_int64_t), intent(in) :: offset(:), count(:)
    integer, intent(in) :: level
    integer(c_int64_t), intent(out) :: grid_count(:)
    integer(c_int64_t), intent(out), optional :: origin(:), stride(:)
    integer, intent(out), optional :: status
    integer(c_int64_t) :: o(HZIO_MAX_DIMS), st(HZIO_MAX_DIMS), n(HZIO_MAX_DIMS)
    integer(c_int) :: s
    s = c_reader_query_grid(reader%ptr, offset, count, int(level, c_int), o, st, n)
    if (s == HZIO_OK) then
      grid_count = n(1:size(grid_count))
      if (present(origin)) origin = o(1:size(origin))
      if (present(stride)) stride = st(1:size(stride))
    end if
    call finish(s, status)
  end subroutine

  !> Reads a box into raw memory holding exactly its samples (collective for collective readers).
  subroutine reader_read_ptr(reader, field, time, level, offset, count, data, status)
    type(hzio_reader), intent(in) :: reader
    character(*), intent(in) :: field
    integer(c_int64_t), intent(in) :: time, offset(:), count(:)
    integer, intent(in) :: level
    type(c_ptr), intent(in) :: data
    integer, intent(out), optional :: status
    type(c_ptr) :: out(1)
    out(1) = data
    call finish(c_reader_read(reader%ptr, c_chars(field), time, int(level, c_int), 1_c_int64_t, offset, count, out), &
                status)
  end subroutine

  subroutine read_array(reader, field, time, level, offset, count, elements, element_bytes, data, status)
    type(hzio_reader), intent(in) :: reader
    character(*), intent(in) :: field
    integer(c_int64_t), intent(in) :: time, offset(:), count(:), elements
    integer, intent(in) :: level, element_bytes
    type(c_ptr), intent(in) :: data
    integer, intent(out), optional :: status
    call finish(c_reader_read_array(reader%ptr, c_chars(field), time, int(level, c_int), offset, count, elements, &
                                    int(element_bytes, c_int), data), status)
  end subroutine

  subroutine hzio_reader_get_stats(reader, stats, status)
    type(hzio_reader), intent(in) :: reader
    type(hzio_io_stats), intent(out) :: stats
    integer, intent(out), optional :: status
    call finish(c_reader_get_stats(reader%ptr, stats), status)
  end subroutine

  integer(c_int) function flags_or_zero(flags)
    integer, intent(in), optional :: flags
    flags_or_zero = 0
    if (present(flags)) flags_or_zero = int(flags, c_int)
  end function

  include "hzio_array_procedures.inc"

end module hzio
