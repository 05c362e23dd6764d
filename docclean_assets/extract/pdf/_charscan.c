/* One page's per-char PDFium data in one call, as arrays (see pdf/charscan.py).
 *
 * Reading the chars through ctypes costs four foreign calls per char (its text object, loose box,
 * origin and generated flag), ~1.6 us each with their argument conversion: on the corpus's 1.1 M
 * chars that was more time than the rest of the page reading. This module makes the same four
 * calls from C and returns the results as packed arrays the Python stage indexes, plus the style
 * of each run of chars from one text object (matrix, font size, font name, fill colour: four more
 * calls, made once per run instead of once per object from Python).
 *
 * It links against nothing: the caller passes the addresses of PDFium's functions (pypdfium2's
 * own library, already loaded in the process) and of the text page, so it works with whichever
 * PDFium build pypdfium2 ships. The GIL is held throughout: PDFium is not thread-safe.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

typedef struct { float left, top, right, bottom; } rect_f; /* PDFium's FS_RECTF */
typedef void *(*text_object_fn)(void *, int);
typedef int (*loose_box_fn)(void *, int, rect_f *);
typedef int (*origin_fn)(void *, int, double *, double *);
typedef int (*generated_fn)(void *, int);
typedef struct { float a, b, c, d, e, f; } matrix_f; /* PDFium's FS_MATRIX */
typedef int (*matrix_fn)(void *, int, matrix_f *);
typedef double (*font_size_fn)(void *, int);
typedef unsigned long (*font_info_fn)(void *, int, void *, unsigned long, int *);
typedef int (*fill_fn)(void *, int, unsigned int *, unsigned int *, unsigned int *, unsigned int *);

/* flag bits per char */
#define GENERATED 1
#define ORIGIN_OK 2

/* The style of char i: (i, matrix ok, a, b, c, d, font size, font name, fill ok, r, g, b). */
static PyObject *style(void *tp, int i, matrix_fn get_matrix, font_size_fn get_size, font_info_fn get_font,
                       fill_fn get_fill)
{
    matrix_f m = {0};
    int m_ok = get_matrix(tp, i, &m) ? 1 : 0;
    double size = get_size(tp, i);
    char small[128];
    int font_flags = 0;
    unsigned long len = get_font(tp, i, small, sizeof small, &font_flags);
    PyObject *name;
    if (len > sizeof small) {
        char *big = PyMem_Malloc(len);
        if (!big)
            return PyErr_NoMemory();
        get_font(tp, i, big, len, &font_flags);
        name = PyBytes_FromStringAndSize(big, (Py_ssize_t)strnlen(big, len));
        PyMem_Free(big);
    } else {
        name = PyBytes_FromStringAndSize(small, len ? (Py_ssize_t)strnlen(small, len) : 0);
    }
    if (!name)
        return NULL;
    unsigned int r = 0, g = 0, b = 0, a = 0;
    int fill_ok = get_fill(tp, i, &r, &g, &b, &a) ? 1 : 0;
    return Py_BuildValue("(iOdddddNOiii)", i, m_ok ? Py_True : Py_False, (double)m.a, (double)m.b, (double)m.c,
                         (double)m.d, size, name, fill_ok ? Py_True : Py_False, (int)r, (int)g, (int)b);
}

static PyObject *scan(PyObject *self, PyObject *args)
{
    unsigned long long page, f_obj, f_box, f_origin, f_generated, f_matrix, f_size, f_font, f_fill;
    int n;
    if (!PyArg_ParseTuple(args, "KiKKKKKKKK", &page, &n, &f_obj, &f_box, &f_origin, &f_generated, &f_matrix,
                          &f_size, &f_font, &f_fill))
        return NULL;
    if (!page || !f_obj || !f_box || !f_origin || !f_generated || !f_matrix || !f_size || !f_font || !f_fill) {
        PyErr_SetString(PyExc_ValueError, "null text page or function address");
        return NULL;
    }
    if (n < 0)
        n = 0;
    PyObject *objs = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)n * 8);
    PyObject *boxes = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)n * 16);
    PyObject *origins = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)n * 16);
    PyObject *flags = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)n);
    PyObject *styles = PyList_New(0);
    if (!objs || !boxes || !origins || !flags || !styles) {
        Py_XDECREF(objs); Py_XDECREF(boxes); Py_XDECREF(origins); Py_XDECREF(flags); Py_XDECREF(styles);
        return NULL;
    }
    void *tp = (void *)(uintptr_t)page;
    text_object_fn get_obj = (text_object_fn)(uintptr_t)f_obj;
    loose_box_fn get_box = (loose_box_fn)(uintptr_t)f_box;
    origin_fn get_origin = (origin_fn)(uintptr_t)f_origin;
    generated_fn is_generated = (generated_fn)(uintptr_t)f_generated;
    matrix_fn get_matrix = (matrix_fn)(uintptr_t)f_matrix;
    font_size_fn get_size = (font_size_fn)(uintptr_t)f_size;
    font_info_fn get_font = (font_info_fn)(uintptr_t)f_font;
    fill_fn get_fill = (fill_fn)(uintptr_t)f_fill;
    uint64_t *o = (uint64_t *)PyBytes_AS_STRING(objs);
    float *b = (float *)PyBytes_AS_STRING(boxes);
    double *g = (double *)PyBytes_AS_STRING(origins);
    unsigned char *f = (unsigned char *)PyBytes_AS_STRING(flags);
    /* One box and one origin reused across chars, as the ctypes reader reuses its out-parameters:
     * a failed call leaves the previous char's values, the same in both readers. */
    rect_f box = {0.0f, 0.0f, 0.0f, 0.0f};
    double ox = 0.0, oy = 0.0;
    uint64_t run = 0; /* the text object of the current run (chars without one do not end it) */
    for (int i = 0; i < n; i++) {
        o[i] = (uint64_t)(uintptr_t)get_obj(tp, i);
        if (o[i] && o[i] != run) {
            run = o[i];
            PyObject *st = style(tp, i, get_matrix, get_size, get_font, get_fill);
            if (!st || PyList_Append(styles, st) < 0) {
                Py_XDECREF(st);
                Py_DECREF(objs); Py_DECREF(boxes); Py_DECREF(origins); Py_DECREF(flags); Py_DECREF(styles);
                return NULL;
            }
            Py_DECREF(st);
        }
        get_box(tp, i, &box);
        b[4 * i] = box.left; b[4 * i + 1] = box.top; b[4 * i + 2] = box.right; b[4 * i + 3] = box.bottom;
        int ok = get_origin(tp, i, &ox, &oy);
        g[2 * i] = ox; g[2 * i + 1] = oy;
        f[i] = (unsigned char)((is_generated(tp, i) ? GENERATED : 0) | (ok ? ORIGIN_OK : 0));
    }
    return Py_BuildValue("(NNNNN)", objs, boxes, origins, flags, styles);
}

static PyMethodDef methods[] = {
    {"scan", scan, METH_VARARGS,
     "scan(textpage, n, text_object, loose_box, origin, is_generated, matrix, font_size, font_info, fill)"
     " -> (objs, boxes, origins, flags, styles)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_charscan", NULL, -1, methods};

PyMODINIT_FUNC PyInit__charscan(void) { return PyModule_Create(&module); }
