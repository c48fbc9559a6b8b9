// The few UnityEngine types the package's Unity layer touches, with Unity's signatures,
// so that mcs type-checks that layer without a Unity install. Nothing here runs: a real
// Unity Editor is what would show the layer's behaviour.
using System;

namespace UnityEngine
{
    public class Object
    {
        public string name { get; set; }
    }

    public class GameObject : Object
    {
    }

    public class Component : Object
    {
        public GameObject gameObject { get { return null; } }
    }

    public class Behaviour : Component
    {
        public bool enabled { get; set; }
    }

    public class MonoBehaviour : Behaviour
    {
    }

    public class ScriptableObject : Object
    {
    }

    public static class Time
    {
        public static float time { get { return 0f; } }
    }

    public static class Debug
    {
        public static void Log(object message) { }
        public static void LogWarning(object message) { }
        public static void LogError(object message) { }
    }

    public class PropertyAttribute : Attribute
    {
    }

    [AttributeUsage(AttributeTargets.Field, Inherited = true, AllowMultiple = false)]
    public sealed class TooltipAttribute : PropertyAttribute
    {
        public TooltipAttribute(string tooltip) { }
    }

    [AttributeUsage(AttributeTargets.Field, Inherited = true, AllowMultiple = false)]
    public sealed class TextAreaAttribute : PropertyAttribute
    {
        public TextAreaAttribute() { }
        public TextAreaAttribute(int minLines, int maxLines) { }
    }

    [AttributeUsage(AttributeTargets.Field, Inherited = true, AllowMultiple = false)]
    public sealed class RangeAttribute : PropertyAttribute
    {
        public RangeAttribute(float min, float max) { }
    }

    [AttributeUsage(AttributeTargets.Class, Inherited = false)]
    public sealed class CreateAssetMenuAttribute : Attribute
    {
        public string menuName { get; set; }
        public string fileName { get; set; }
        public int order { get; set; }
    }
}

namespace UnityEngine.Events
{
    public abstract class UnityEventBase
    {
    }

    [Serializable]
    public class UnityEvent<T0> : UnityEventBase
    {
        public void AddListener(Action<T0> call) { }
        public void RemoveListener(Action<T0> call) { }
        public void Invoke(T0 arg0) { }
    }
}
