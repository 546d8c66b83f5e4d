//! The host handle: one client for many servers, answering them with Python callables.

use mcpweft_bridge::{Host, HostEvents};
use pyo3::prelude::*;

use crate::{
    client::{Handlers, call_options},
    convert,
    error::OrRaise,
    runtime::{self, LoopSlot},
};

/// A host of many servers.
#[pyclass(name = "Host", module = "mcpweft._native", frozen)]
pub(crate) struct PyHost {
    inner: Host,
    event_loop: LoopSlot,
}

#[pymethods]
impl PyHost {
    /// Connects to every enabled server of `config` (a path, or the configuration as a dict)
    /// with `options` (the bridge's host options) and `handlers`; the awaitable gives the host
    /// once each server is ready or failed.
    #[staticmethod]
    fn connect<'py>(
        py: Python<'py>,
        config: &Bound<'py, PyAny>,
        options: &Bound<'py, PyAny>,
        handlers: Handlers,
    ) -> PyResult<Bound<'py, PyAny>> {
        let event_loop = LoopSlot::default();
        event_loop.capture(py)?;
        let (config, options) = (convert::from_py(config)?, convert::from_py(options)?);
        let task = Host::connect(config, options, handlers.callbacks(py, &event_loop)?);
        runtime::await_task(py, task, move |py, inner| Ok(Bound::new(py, PyHost { inner, event_loop })?.into_any()))
    }

    /// Every configured server with its state, as a list of dicts.
    fn servers<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::to_py(py, &self.inner.servers())
    }

    /// The state of the server `name`, as a dict.
    fn state<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        convert::to_py(py, &self.inner.state(name).or_raise(py)?)
    }

    /// The tools of the ready servers under their host names.
    fn tools<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::to_py(py, &self.inner.tools())
    }

    /// The prompts of the ready servers under their host names.
    fn prompts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::to_py(py, &self.inner.prompts())
    }

    /// The resources of the ready servers.
    fn resources<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::to_py(py, &self.inner.resources())
    }

    /// The resource templates of the ready servers.
    fn resource_templates<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::to_py(py, &self.inner.resource_templates())
    }

    /// The names that several ready servers offer at once.
    fn collisions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::to_py(py, &self.inner.collisions())
    }

    /// Calls a tool by its host name; `options` is the bridge's call options (`timeoutMs`,
    /// `maxTotalTimeoutMs`) and `progress(params)` is scheduled on the loop for each progress
    /// notification.
    #[pyo3(signature = (name, arguments=None, options=None, progress=None))]
    fn call_tool<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        arguments: Option<&Bound<'py, PyAny>>,
        options: Option<&Bound<'py, PyAny>>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let options = call_options(py, &self.event_loop, options, progress)?;
        runtime::await_json(py, self.inner.call_tool(name, convert::from_opt(arguments)?, options))
    }

    /// Reads the resource at `uri`, from `server` when given.
    /// Reads the app view (MCP Apps) of the tool with host name `tool`: a dict of `uri`, `html`
    /// and `meta`.
    fn read_app_view<'py>(&self, py: Python<'py>, tool: &str) -> PyResult<Bound<'py, PyAny>> {
        runtime::await_json(py, self.inner.read_app_view(tool))
    }

    #[pyo3(signature = (uri, server=None, options=None, progress=None))]
    fn read_resource<'py>(
        &self,
        py: Python<'py>,
        uri: &str,
        server: Option<String>,
        options: Option<&Bound<'py, PyAny>>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let options = call_options(py, &self.event_loop, options, progress)?;
        runtime::await_json(py, self.inner.read_resource(uri, server, options))
    }

    /// Gets a prompt by its host name with string `arguments`.
    #[pyo3(signature = (name, arguments=None, options=None, progress=None))]
    fn get_prompt<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        arguments: Option<&Bound<'py, PyAny>>,
        options: Option<&Bound<'py, PyAny>>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let options = call_options(py, &self.event_loop, options, progress)?;
        runtime::await_json(py, self.inner.get_prompt(name, convert::from_opt(arguments)?, options))
    }

    /// The state of the task `task_id` of the server `server`.
    #[pyo3(signature = (server, task_id, options=None))]
    fn get_task<'py>(
        &self,
        py: Python<'py>,
        server: &str,
        task_id: &str,
        options: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let options = call_options(py, &self.event_loop, options, None)?;
        runtime::await_json(py, self.inner.get_task(server, task_id, options))
    }

    /// The result of the task `task_id` of the server `server`, once it ends.
    #[pyo3(signature = (server, task_id, options=None))]
    fn task_result<'py>(
        &self,
        py: Python<'py>,
        server: &str,
        task_id: &str,
        options: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let options = call_options(py, &self.event_loop, options, None)?;
        runtime::await_json(py, self.inner.task_result(server, task_id, options))
    }

    /// Cancels the task `task_id` of the server `server`; resolves to its final state.
    #[pyo3(signature = (server, task_id, options=None))]
    fn cancel_task<'py>(
        &self,
        py: Python<'py>,
        server: &str,
        task_id: &str,
        options: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let options = call_options(py, &self.event_loop, options, None)?;
        runtime::await_json(py, self.inner.cancel_task(server, task_id, options))
    }

    /// Connects to the server `name` again.
    fn restart(&self, py: Python<'_>, name: &str) -> PyResult<()> {
        self.inner.restart(name).or_raise(py)
    }

    /// Tells every ready server that the roots changed.
    fn notify_roots_changed(&self) {
        self.inner.notify_roots_changed();
    }

    /// A reader of the host's events from now on.
    fn events(&self) -> PyHostEvents {
        PyHostEvents { inner: self.inner.events() }
    }

    /// Closes every server; the awaitable ends once each has ended.
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        runtime::await_unit(py, self.inner.close())
    }
}

/// A reader of a host's events.
#[pyclass(name = "HostEvents", module = "mcpweft._native", frozen)]
pub(crate) struct PyHostEvents {
    inner: HostEvents,
}

#[pymethods]
impl PyHostEvents {
    /// Returns an awaitable of the next event as a dict, or of `None` once the reader or the
    /// host is closed.
    fn next<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        runtime::await_json(py, self.inner.next_event())
    }

    /// Ends the reader; a waiting `next` gives `None`.
    fn close(&self) {
        self.inner.close();
    }
}
